#!/usr/bin/python3
"""llama.cpp's own quantizer (what llama-quantize runs) on a GGUF file, for
tests that need real Q4_K_M, Q2_K, Q4_0 ... files.

There is no llama-quantize binary here, but node-llama-cpp's prebuilt
llama.cpp library (npm, tests/interop/setup-npm.sh) exports the C API:
    struct llama_model_quantize_params llama_model_quantize_default_params(void);
    uint32_t llama_model_quantize(const char *fname_inp, const char *fname_out,
                                  const llama_model_quantize_params *params);
This module calls it through ctypes.  The llama.h matching the binary comes
from the source node-llama-cpp ships as a git bundle (llamacpp.source_tree);
from it are read:
- the ftype names (enum llama_ftype: Q4_K_M is LLAMA_FTYPE_MOSTLY_Q4_K_M),
- the fields of struct llama_model_quantize_params, which must be exactly
  the ones the ctypes Structure below spells out (names and C types, in
  order): a llama.cpp that adds, drops or moves a field is refused with the
  difference, not called with a wrong struct;
and the library's defaults must look like the ones that header's llama.cpp
gives (nthread 0, ftype Q8_0, no type overrides, quantize_output_tensor,
null pointers), a check that the binary and the header agree.

Only ftype and nthread are changed from the defaults.  The output is written
to a temporary file beside OUT and renamed to OUT on success; on failure no
OUT is left (an older one is removed first) and the error names llama.cpp's
own message.

usage: llama_quantize.py NODE_MODULES IN.gguf OUT.gguf FTYPE [--nthread N] [--cache DIR] [--imatrix] [-v]
  FTYPE: a llama_ftype name (Q4_0, Q4_K_M, IQ4_NL, ...; case-insensitive);
  --cache: where llama.cpp's source is cloned (default: OUT's folder);
  --imatrix: with an importance matrix weighing every column alike (IQ1_S,
  IQ1_M, IQ2_XXS, IQ2_XS, IQ2_S and IQ3_XXS insist on one);
  -v: print llama.cpp's log.  --list: the ftype names.
"""
import ctypes
import json
import os
import re
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import llamacpp  # noqa: E402

PLATFORM_DIR = Path("@node-llama-cpp") / "linux-x64" / "bins" / "linux-x64"


class QuantizeError(Exception):
    pass


class QuantizeParams(ctypes.Structure):
    """struct llama_model_quantize_params, field by field (see FIELDS)."""
    _fields_ = [
        ("nthread", ctypes.c_int32),
        ("ftype", ctypes.c_int),                  # enum llama_ftype
        ("output_tensor_type", ctypes.c_int),     # enum ggml_type
        ("token_embedding_type", ctypes.c_int),   # enum ggml_type
        ("allow_requantize", ctypes.c_bool),
        ("quantize_output_tensor", ctypes.c_bool),
        ("only_copy", ctypes.c_bool),
        ("pure", ctypes.c_bool),
        ("keep_split", ctypes.c_bool),
        ("dry_run", ctypes.c_bool),
        ("imatrix", ctypes.c_void_p),             # const struct llama_model_imatrix_data *
        ("kv_overrides", ctypes.c_void_p),        # const struct llama_model_kv_override *
        ("tt_overrides", ctypes.c_void_p),        # const struct llama_model_tensor_override *
        ("prune_layers", ctypes.c_void_p),        # const int32_t *
        ("max_buf_size", ctypes.c_size_t),
    ]


# the C declaration each field of QuantizeParams stands for, as llama.h
# spells it (whitespace normalised)
FIELDS = [
    ("int32_t", "nthread"),
    ("enum llama_ftype", "ftype"),
    ("enum ggml_type", "output_tensor_type"),
    ("enum ggml_type", "token_embedding_type"),
    ("bool", "allow_requantize"),
    ("bool", "quantize_output_tensor"),
    ("bool", "only_copy"),
    ("bool", "pure"),
    ("bool", "keep_split"),
    ("bool", "dry_run"),
    ("const struct llama_model_imatrix_data *", "imatrix"),
    ("const struct llama_model_kv_override *", "kv_overrides"),
    ("const struct llama_model_tensor_override *", "tt_overrides"),
    ("const int32_t *", "prune_layers"),
    ("size_t", "max_buf_size"),
]
assert [f[1] for f in FIELDS] == [f[0] for f in QuantizeParams._fields_]

class ImatrixData(ctypes.Structure):
    """struct llama_model_imatrix_data (llama.h): an array of them, ended by
    a NULL name, is the importance matrix"""
    _fields_ = [
        ("name", ctypes.c_char_p),
        ("data", ctypes.POINTER(ctypes.c_float)),
        ("size", ctypes.c_size_t),
    ]


LOG_CALLBACK = ctypes.CFUNCTYPE(None, ctypes.c_int, ctypes.c_char_p, ctypes.c_void_p)


class TypeTraits(ctypes.Structure):
    """struct ggml_type_traits (ggml.h), for dequantize()"""
    _fields_ = [
        ("type_name", ctypes.c_char_p),
        ("blck_size", ctypes.c_int64),
        ("blck_size_interleave", ctypes.c_int64),
        ("type_size", ctypes.c_size_t),
        ("is_quantized", ctypes.c_bool),
        ("to_float", ctypes.c_void_p),
        ("from_float_ref", ctypes.c_void_p),
    ]


TO_FLOAT = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.POINTER(ctypes.c_float), ctypes.c_int64)


def _strip_comments(text):
    text = re.sub(r"/\*.*?\*/", " ", text, flags=re.S)
    return re.sub(r"//[^\n]*", " ", text)


def _norm(decl):
    decl = re.sub(r"\s*\*\s*", " * ", decl)
    return " ".join(decl.split())


def parse_enum(header_text, enum_name):
    """{NAME: value} of `enum ENUM_NAME { ... }` (explicit values only, as
    llama.h and ggml.h give them)."""
    text = _strip_comments(header_text)
    m = re.search(r"\benum\s+%s\s*\{(.*?)\}" % re.escape(enum_name), text, re.S)
    if not m:
        raise QuantizeError(f"enum {enum_name} not found in the header")
    out = {}
    for item in m.group(1).split(","):
        item = item.strip()
        if not item:
            continue
        mm = re.fullmatch(r"(\w+)\s*=\s*(-?\d+)", item)
        if not mm:
            raise QuantizeError(f"enum {enum_name}: cannot read {item!r}")
        out[mm.group(1)] = int(mm.group(2))
    return out


def parse_struct(header_text, struct_name):
    """[(C type, field name)] of `struct STRUCT_NAME { ... }`."""
    text = _strip_comments(header_text)
    m = re.search(r"\bstruct\s+%s\s*\{(.*?)\}" % re.escape(struct_name), text, re.S)
    if not m:
        raise QuantizeError(f"struct {struct_name} not found in the header")
    fields = []
    for decl in m.group(1).split(";"):
        decl = " ".join(decl.split())
        if not decl:
            continue
        mm = re.fullmatch(r"(.*?[\s*])(\w+)", decl)
        if not mm or "(" in decl or "[" in decl or "," in decl:
            raise QuantizeError(f"struct {struct_name}: cannot read the field {decl!r}")
        fields.append((_norm(mm.group(1)), mm.group(2)))
    return fields


def ftypes(llama_h_text):
    """{short name: value} of enum llama_ftype: Q4_K_M, F32, BF16 ..."""
    out = {}
    for name, value in parse_enum(llama_h_text, "llama_ftype").items():
        m = re.fullmatch(r"LLAMA_FTYPE_(?:MOSTLY_|ALL_)?(\w+)", name)
        if m and name != "LLAMA_FTYPE_GUESSED":
            out[m.group(1)] = value
    return out


def lib_dir(node_modules):
    d = Path(node_modules) / PLATFORM_DIR
    if not d.is_dir():
        raise llamacpp.Unavailable(f"{d} is missing (run tests/interop/setup-npm.sh)")
    return d


def _find_lib(d, stem):
    libs = sorted(p for p in d.glob(stem + "*.so") if re.fullmatch(re.escape(stem) + r"(\.v[\d.]+)?\.so", p.name))
    if len(libs) != 1:
        raise llamacpp.Unavailable(f"{d}: expected one {stem}*.so, found {[p.name for p in libs]}")
    return libs[0]


class Llama:
    """libllama (and the libggml* beside it) loaded once per process, with
    the headers of the source it was built from."""
    _instance = None

    def __init__(self, node_modules, cache):
        d = lib_dir(node_modules)
        # the binary and the bundled source must be one llama.cpp release
        built = json.loads((d / "_nlcBuildMetadata.json").read_text())["buildOptions"]["llamaCpp"]["release"]
        info = Path(node_modules) / "node-llama-cpp" / "llama" / "llama.cpp.info.json"
        shipped = json.loads(info.read_text())["tag"]
        if built != shipped:
            raise QuantizeError(f"the prebuilt library is llama.cpp {built} but the shipped source is {shipped}")
        tree = llamacpp.source_tree(node_modules, cache, modules=())
        self.tree = tree
        llama_h = (tree / "include" / "llama.h").read_text()
        ggml_h = (tree / "ggml" / "include" / "ggml.h").read_text()
        self.ftypes = ftypes(llama_h)
        self.ggml_types = {k[len("GGML_TYPE_"):]: v for k, v in parse_enum(ggml_h, "ggml_type").items()}
        got = parse_struct(llama_h, "llama_model_quantize_params")
        if got != FIELDS:
            raise QuantizeError(
                "struct llama_model_quantize_params in llama.h is not the one this harness binds:\n"
                f"  llama.h: {got}\n  harness: {FIELDS}")
        got = parse_struct(ggml_h, "ggml_type_traits")
        want = [(_norm(t), n) for t, n in [("const char *", "type_name"), ("int64_t", "blck_size"),
                                          ("int64_t", "blck_size_interleave"), ("size_t", "type_size"),
                                          ("bool", "is_quantized"), ("ggml_to_float_t", "to_float"),
                                          ("ggml_from_float_t", "from_float_ref")]]
        if got != want:
            raise QuantizeError(f"struct ggml_type_traits in ggml.h is not the one this harness binds: {got}")

        # libllama needs libggml and libggml-base (ldd); load them first, global
        self.ggml_base = ctypes.CDLL(str(d / "libggml-base.so"), mode=ctypes.RTLD_GLOBAL)
        self.ggml = ctypes.CDLL(str(_find_lib(d, "libggml")), mode=ctypes.RTLD_GLOBAL)
        self.lib = ctypes.CDLL(str(_find_lib(d, "libllama")), mode=ctypes.RTLD_GLOBAL)
        lib = self.lib
        lib.llama_model_quantize_default_params.restype = QuantizeParams
        lib.llama_model_quantize_default_params.argtypes = []
        lib.llama_model_quantize.restype = ctypes.c_uint32
        lib.llama_model_quantize.argtypes = [ctypes.c_char_p, ctypes.c_char_p, ctypes.POINTER(QuantizeParams)]
        lib.llama_backend_init.restype = None
        lib.llama_backend_init.argtypes = []
        lib.llama_log_set.restype = None
        lib.llama_log_set.argtypes = [LOG_CALLBACK, ctypes.c_void_p]
        self.ggml_base.ggml_get_type_traits.restype = ctypes.POINTER(TypeTraits)
        self.ggml_base.ggml_get_type_traits.argtypes = [ctypes.c_int]

        self.log = []
        self._cb = LOG_CALLBACK(lambda level, text, user: self.log.append(text.decode("utf-8", "replace")))
        lib.llama_log_set(self._cb, None)
        lib.llama_backend_init()

        p = lib.llama_model_quantize_default_params()
        want = dict(nthread=0, ftype=self.ftypes["Q8_0"], output_tensor_type=self.ggml_types["COUNT"],
                    token_embedding_type=self.ggml_types["COUNT"], allow_requantize=False,
                    quantize_output_tensor=True, only_copy=False, pure=False, keep_split=False,
                    dry_run=False, imatrix=None, kv_overrides=None, tt_overrides=None, prune_layers=None)
        odd = {k: getattr(p, k) for k, v in want.items() if getattr(p, k) != v}
        if odd or p.max_buf_size == 0:
            raise QuantizeError(f"llama_model_quantize_default_params() gave unexpected values {odd} "
                                f"(max_buf_size {p.max_buf_size}): the binary does not match llama.h")

    @classmethod
    def get(cls, node_modules, cache):
        if cls._instance is None:
            cls._instance = cls(node_modules, cache)
        return cls._instance

    def ftype_value(self, ftype):
        key = str(ftype).upper()
        for prefix in ("LLAMA_FTYPE_MOSTLY_", "LLAMA_FTYPE_ALL_"):
            if key.startswith(prefix):
                key = key[len(prefix):]
        if key not in self.ftypes:
            raise QuantizeError(f"unknown ftype {ftype!r}; llama.h has {', '.join(self.ftypes)}")
        return self.ftypes[key]

    def uniform_imatrix(self, inp):
        """An importance matrix weighing every column of every matrix of
        INP alike ({tensor name: [1.0] * columns}), read with gguf-py: what
        llama.cpp's IQ1, IQ2 and IQ3_XXS quantizations insist on."""
        sys.path.insert(0, str(self.tree / "gguf-py"))
        from gguf import GGUFReader
        return {t.name: [1.0] * int(t.shape[0]) for t in GGUFReader(str(inp)).tensors
                if len(t.shape) >= 2 and int(t.shape[1]) > 1}

    def quantize(self, inp, out, ftype, nthread=1, imatrix=None):
        """Quantizes INP into OUT (with IMATRIX, {tensor name: weights},
        where given); returns llama.cpp's log of the run."""
        out = Path(out)
        value = self.ftype_value(ftype)
        if out.exists():
            out.unlink()
        tmp = out.with_name(f".{out.name}.quantizing-{os.getpid()}")
        params = self.lib.llama_model_quantize_default_params()
        params.ftype = value
        params.nthread = int(nthread)
        if imatrix:
            entries = (ImatrixData * (len(imatrix) + 1))()
            keep = []
            for entry, (name, weights) in zip(entries, imatrix.items()):
                data = (ctypes.c_float * len(weights))(*weights)
                keep.append(data)
                entry.name, entry.data, entry.size = name.encode(), data, len(weights)
            params.imatrix = ctypes.cast(entries, ctypes.c_void_p)
        self.log.clear()
        try:
            rc = self.lib.llama_model_quantize(os.fsencode(inp), os.fsencode(tmp), ctypes.byref(params))
            log = "".join(self.log)
            if rc != 0:
                errors = [l for l in log.splitlines() if "error" in l.lower() or "failed" in l.lower()]
                raise QuantizeError(f"llama_model_quantize({inp}, {ftype}) returned {rc}: "
                                    + ("; ".join(errors) or log.strip()[-500:]))
            with open(tmp, "rb") as f:
                if f.read(4) != b"GGUF":
                    raise QuantizeError(f"llama_model_quantize wrote no GGUF file for {inp}")
            os.replace(tmp, out)
            return log
        finally:
            if tmp.exists():
                tmp.unlink()

    def dequantize(self, raw, ggml_type):
        """RAW (bytes of whole blocks of GGML_TYPE, a name or a number)
        decoded by ggml's own to_float: a float32 numpy array."""
        import numpy as np
        t = self.ggml_types[ggml_type.upper()] if isinstance(ggml_type, str) else int(ggml_type)
        tr = self.ggml_base.ggml_get_type_traits(t).contents
        if not tr.to_float or tr.blck_size <= 0 or len(raw) % tr.type_size:
            raise QuantizeError(f"cannot decode {len(raw)} bytes of ggml type {ggml_type} ({tr.type_name})")
        n = len(raw) // tr.type_size * tr.blck_size
        out = np.empty(n, np.float32)
        buf = ctypes.create_string_buffer(bytes(raw), len(raw))
        TO_FLOAT(tr.to_float)(ctypes.cast(buf, ctypes.c_void_p),
                              out.ctypes.data_as(ctypes.POINTER(ctypes.c_float)), n)
        return out


def quantize(node_modules, inp, out, ftype, nthread=1, cache=None, imatrix=False):
    """llama.cpp's quantization of INP into OUT as FTYPE (a llama_ftype name:
    Q4_K_M, Q2_K, ...), with a uniform importance matrix if IMATRIX; returns
    llama.cpp's log.  CACHE is where llama.cpp's source is cloned for its
    headers (default: OUT's folder).  Raises QuantizeError (or
    llamacpp.Unavailable where node-llama-cpp is missing)."""
    cache = Path(cache) if cache is not None else Path(out).resolve().parent
    llama = Llama.get(node_modules, cache)
    return llama.quantize(inp, out, ftype, nthread, llama.uniform_imatrix(inp) if imatrix else None)


def main(argv):
    import argparse
    ap = argparse.ArgumentParser(description="llama.cpp's quantizer (node-llama-cpp's libllama)")
    ap.add_argument("node_modules")
    ap.add_argument("inp", nargs="?")
    ap.add_argument("out", nargs="?")
    ap.add_argument("ftype", nargs="?")
    ap.add_argument("--nthread", type=int, default=1)
    ap.add_argument("--cache")
    ap.add_argument("--imatrix", action="store_true",
                    help="with an importance matrix that weighs every column alike")
    ap.add_argument("--list", action="store_true", help="print the ftype names and exit")
    ap.add_argument("-v", "--verbose", action="store_true")
    a = ap.parse_args(argv)
    try:
        if a.list:
            cache = Path(a.cache) if a.cache else Path.cwd()
            for name, value in Llama.get(a.node_modules, cache).ftypes.items():
                print(f"{name} {value}")
            return 0
        if not (a.inp and a.out and a.ftype):
            ap.error("IN.gguf, OUT.gguf and FTYPE are needed")
        log = quantize(a.node_modules, a.inp, a.out, a.ftype, a.nthread, a.cache, a.imatrix)
    except (QuantizeError, llamacpp.Unavailable) as e:
        print(f"llama_quantize: {e}", file=sys.stderr)
        return 1
    if a.verbose:
        sys.stderr.write(log)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
