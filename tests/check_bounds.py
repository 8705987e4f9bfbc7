#!/usr/bin/python3
# check_bounds.py - opening a file costs what its header costs, not what it claims
#
# Copyright 2026 The Tensorscope authors
# SPDX-License-Identifier: GPL-3.0-or-later
#
# Usage: check_bounds.py CLI WORKDIR
#
# Writes hostile and huge-header inputs into WORKDIR (sparse where possible)
# and runs the CLI on each: counts of 2^62 and lengths of 2^63 must be
# refused before anything is allocated from them; a 100 MB JSON header of
# one giant string, a 100 MB GGUF string, 10^6 tiny tensors (GGUF and
# Safetensors) and 10^6 metadata entries must be answered within seconds
# with a peak RSS proportional to the header (measured with os.wait4's
# ru_maxrss of the CLI child; not checked when TS_SANITIZER is set, as ASan
# inflates memory). Converter inputs (config.json, tokenizer.json) that
# claim a 4-billion-token vocabulary or a 2^31 head size, or nest a million
# levels deep, must be refused just as cheaply.
#
# Ends with "N passed, M failed"; exits 1 if any failed.

import itertools
import json
import os
import shutil
import struct
import subprocess
import sys
import tempfile
import time

CLI, WORK = sys.argv[1], sys.argv[2]
SANITIZER = bool(os.environ.get("TS_SANITIZER"))
# ASan/UBSan builds run several times slower
SLOW = 6 if SANITIZER else 1
MB = 1024 * 1024
passed = failed = 0


def run(args, timeout):
    """Run the CLI; return (status, stdout head, stderr, maxrss KB, seconds)."""
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        t0 = time.monotonic()
        p = subprocess.Popen([CLI] + args, stdin=subprocess.DEVNULL,
                             stdout=out, stderr=err)
        timed_out = False
        while True:
            pid, status, ru = os.wait4(p.pid, os.WNOHANG)
            if pid == p.pid:
                break
            if time.monotonic() - t0 > timeout:
                timed_out = True
                p.kill()
                pid, status, ru = os.wait4(p.pid, 0)
                break
            time.sleep(0.005)
        p.returncode = status
        elapsed = time.monotonic() - t0
        out.seek(0)
        err.seek(0)
        return (None if timed_out else status, out.read(4096), err.read(4096),
                ru.ru_maxrss, elapsed)


def check(name, args, expect, seconds, rss_mb, nick=None):
    """expect: exit status; nick: the JSON error code when it fails."""
    global passed, failed
    status, out, err, rss, elapsed = run(args, seconds * SLOW)
    errors = []
    if status is None:
        errors.append("no answer within %d s" % (seconds * SLOW))
    elif os.WIFSIGNALED(status):
        errors.append("killed by signal %d; stderr: %s"
                      % (os.WTERMSIG(status), err.decode(errors="replace")[-600:]))
    elif os.WEXITSTATUS(status) != expect:
        errors.append("exit status %d, expected %d; stderr: %s"
                      % (os.WEXITSTATUS(status), expect,
                         err.decode(errors="replace")[-600:]))
    elif nick is not None:
        try:
            code = json.loads(out)["error"]["code"]
        except (ValueError, KeyError, TypeError):
            code = None
        if code != nick:
            errors.append("error code %r, expected %r" % (code, nick))
    if not SANITIZER and rss > rss_mb * 1024:
        errors.append("peak RSS %d MB > %d MB" % (rss // 1024, rss_mb))
    line = "%s  (%.2f s, %d MB)" % (name, elapsed, rss // 1024)
    if errors:
        failed += 1
        print("FAIL", line)
        for e in errors:
            print("    ", e)
    else:
        passed += 1
        print("PASS", line)


# --------------------------------------------------------------- writers

def u32(v):
    return struct.pack("<I", v)


def u64(v):
    return struct.pack("<Q", v)


def gstr(b):
    return u64(len(b)) + b


def gguf(kvs=b"", n_kv=0, descs=b"", n_tensors=0, tail=b""):
    return b"GGUF" + u32(3) + u64(n_tensors) + u64(n_kv) + kvs + descs + tail


def in_child(fn):
    """Run a generator in a forked child: the CLI is spawned from this
    process, and a child's peak RSS starts from its parent's at fork time,
    so the big inputs are never built here."""
    pid = os.fork()
    if pid == 0:
        try:
            fn()
            os._exit(0)
        except BaseException:
            import traceback
            traceback.print_exc()
            os._exit(1)
    _, status = os.waitpid(pid, 0)
    if status != 0:
        raise RuntimeError("generator %s failed" % fn.__name__)


def write(name, *chunks, sparse_to=None):
    path = os.path.join(WORK, name)

    def gen():
        with open(path, "wb") as f:
            for c in chunks:
                f.write(c() if callable(c) else c)
            if sparse_to is not None:
                f.truncate(sparse_to)
    in_child(gen)
    return path


def st_file(name, header, sparse_data=0):
    """header: bytes, or a function returning them (built in the child)."""
    path = os.path.join(WORK, name)

    def gen():
        h = header() if callable(header) else header
        h += b" " * ((-len(h)) % 8)
        with open(path, "wb") as f:
            f.write(u64(len(h)))
            f.write(h)
            f.truncate(8 + len(h) + sparse_data)
    in_child(gen)
    return path


# ----------------------------------------------------------------- cases

def claimed_counts():
    pad = b"\0" * 64
    # arrays of 2^62 items, each type of item: refused before the walk
    for label, elem in (("uint8", 0), ("string", 8), ("array", 9)):
        p = write("gguf_array_2p62_%s.gguf" % label,
                  gguf(gstr(b"big") + u32(9) + u32(elem) + u64(1 << 62), 1), pad)
        check("GGUF array of 2^62 %s items" % label,
              ["inspect", "--json", p], 1, 5, 64, "array-past-eof")
    p = write("gguf_string_2p63.gguf", gguf(gstr(b"s") + u32(8) + u64(1 << 63), 1), pad)
    check("GGUF string of 2^63 bytes", ["inspect", "--json", p], 1, 5, 64,
          "string-past-eof")
    p = write("gguf_tensor_count_2p62.gguf", gguf(n_tensors=1 << 62), pad)
    check("GGUF tensor count 2^62", ["inspect", "--json", p], 1, 5, 64,
          "count-too-large")
    p = write("gguf_kv_count_2p62.gguf", gguf(n_kv=1 << 62), pad)
    check("GGUF metadata count 2^62", ["inspect", "--json", p], 1, 5, 64,
          "count-too-large")
    # a descriptor claiming 2^62 elements in a 1 GB sparse file
    desc = gstr(b"t") + u32(2) + u64(1 << 30) + u64(1 << 30) + u32(0) + u64(0)
    p = write("gguf_tensor_2p60_elements.gguf", gguf(descs=desc, n_tensors=1),
              sparse_to=1 << 30)
    check("GGUF tensor of 2^60 F32 elements in 1 GB", ["inspect", "--json", p], 1, 5, 64,
          "data-past-eof")
    p = write("st_header_2p63.safetensors", u64(1 << 63), b"{}      ")
    check("Safetensors header length 2^63", ["inspect", "--json", p], 1, 5, 64,
          "header-too-large")
    h = json.dumps({"t": {"dtype": "F32", "shape": [1 << 31, 1 << 31],
                          "data_offsets": [0, 1 << 64 - 1]}}).encode()
    p = st_file("st_shape_2p62.safetensors", h)
    check("Safetensors shape of 2^62 elements", ["inspect", "--json", p], 1, 5, 64)


def giant_strings():
    n = 100_000_000
    # a 100 MB header that is one JSON string: parsed, then refused
    p = st_file("st_header_one_string.safetensors",
                lambda: b'"' + b"x" * (n - 2) + b'"')
    check("Safetensors 100 MB header of one string", ["inspect", "--json", p],
          1, 20, 900, "header-not-object")
    # a valid 100 MB header: one giant __metadata__ string
    pre, post = b'{"__metadata__":{"note":"', b'"}}'
    p = st_file("st_header_giant_metadata.safetensors",
                lambda: pre + b"y" * (n - len(pre) - len(post)) + post)
    check("Safetensors 100 MB header, one metadata string", ["inspect", p],
          0, 20, 900)
    # a giant tensor name
    pre2, post2 = b'{"', b'":{"dtype":"F32","shape":[0],"data_offsets":[0,0]}}'
    p = st_file("st_header_giant_name.safetensors",
                lambda: pre2 + b"n" * (n - len(pre2) - len(post2)) + post2)
    check("Safetensors 100 MB header, one tensor name", ["inspect", p], 0, 20, 900)
    # just above the limit: refused without reading it
    p = write("st_header_limit.safetensors", u64(n + 8), b"{", sparse_to=n + 16)
    check("Safetensors header of 100,000,008 bytes", ["inspect", "--json", p],
          1, 5, 64, "header-too-large")
    # GGUF: a 100 MB string value
    kv = gstr(b"general.note") + u32(8) + u64(n)
    p = write("gguf_giant_string.gguf", gguf(kv, 1), lambda: b"z" * n)
    check("GGUF 100 MB metadata string", ["inspect", p], 0, 20, 600)


def many_tensors():
    n = 10 ** 6
    # GGUF: 10^6 descriptors of 2-element F32 tensors, alignment 8
    p = os.path.join(WORK, "gguf_1m_tensors.gguf")

    def gen_tensors():
        align = gstr(b"general.alignment") + u32(4) + u32(8)
        descs = b"".join(gstr(b"t%07d" % i) + u32(1) + u64(2) + u32(0) + u64(8 * i)
                         for i in range(n))
        head = gguf(align, 1, descs, n)
        pad = (-len(head)) % 8
        with open(p, "wb") as f:
            f.write(head + b"\0" * pad)
            f.truncate(len(head) + pad + 8 * n)
    in_child(gen_tensors)
    check("GGUF 10^6 tensors (%d MB)" % (os.path.getsize(p) // MB),
          ["inspect", p], 0, 30, 1024)
    # GGUF: 10^6 metadata entries
    p = write("gguf_1m_metadata.gguf",
              lambda: gguf(b"".join(gstr(b"k%07d" % i) + u32(4) + u32(i)
                                    for i in range(n)), n))
    check("GGUF 10^6 metadata entries (%d MB)" % (os.path.getsize(p) // MB),
          ["inspect", p], 0, 30, 1024)
    # Safetensors: 10^6 one-byte U8 tensors in one header
    p = st_file("st_1m_tensors.safetensors",
                lambda: b"{" + b",".join(
                    b'"t%07d":{"dtype":"U8","shape":[1],"data_offsets":[%d,%d]}'
                    % (i, i, i + 1) for i in range(n)) + b"}",
                sparse_data=n)
    check("Safetensors 10^6 tensors (%d MB header)" % (os.path.getsize(p) // MB),
          ["inspect", p], 0, 60, 2048)
    # one more than the 2^20 tensors a model may hold: refused before they
    # are read (ten million took 4.4 GB); the Safetensors header is parsed
    # first (7 million JSON values, ~1.4 GB)
    n = (1 << 20) + 1
    p = os.path.join(WORK, "gguf_2p20_plus_1_tensors.gguf")

    def gen_too_many():
        descs = b"".join(gstr(b"t%07d" % i) + u32(1) + u64(1) + u32(0) + u64(0)
                         for i in range(n))
        head = gguf(b"", 0, descs, n)
        with open(p, "wb") as f:
            f.write(head + b"\0" * ((-len(head)) % 32 + 32))
    in_child(gen_too_many)
    check("GGUF 2^20 + 1 tensors (%d MB)" % (os.path.getsize(p) // MB),
          ["inspect", "--json", p], 1, 10, 256, "count-too-large")
    # and one more than the 2^20 metadata entries a GGUF file may hold (five
    # million took 1.1 GB)
    p = write("gguf_2p20_plus_1_metadata.gguf",
              lambda: gguf(b"".join(gstr(b"k%07d" % i) + u32(4) + u32(i)
                                    for i in range(n)), n))
    check("GGUF 2^20 + 1 metadata entries (%d MB)" % (os.path.getsize(p) // MB),
          ["inspect", "--json", p], 1, 10, 256, "count-too-large")
    p = st_file("st_2p20_plus_1_tensors.safetensors",
                lambda: b"{" + b",".join(
                    b'"t%07d":{"dtype":"U8","shape":[0],"data_offsets":[0,0]}' % i
                    for i in range(n)) + b"}")
    check("Safetensors 2^20 + 1 tensors (%d MB header)" % (os.path.getsize(p) // MB),
          ["inspect", "--json", p], 1, 30, 2048, "count-too-large")


def deep_nesting():
    p = st_file("st_header_deep.safetensors", b"[" * 10 ** 6 + b"]" * 10 ** 6)
    check("Safetensors header nested 10^6 deep", ["inspect", "--json", p], 1, 5, 128,
          "header-invalid-json")
    # json-glib also takes comments and single-quoted strings: brackets inside them
    # must not hide real nesting from the guard (this one crashed the stack)
    p = st_file("st_header_deep_comment.safetensors",
                b'{"a":' + b"[/*]*/" * 200000 + b"]" * 200000 + b"}")
    check("Safetensors header nested 200,000 deep behind comments",
          ["inspect", "--json", p], 1, 5, 128, "header-invalid-json")
    p = st_file("st_header_squote_dup.safetensors",
                b'{"w":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},'
                b"'w':{\"dtype\":\"F32\",\"shape\":[4],\"data_offsets\":[0,16]}}")
    check("Safetensors header with a duplicate key in single quotes",
          ["inspect", "--json", p], 1, 5, 128, "header-invalid-json")


def special_files():
    """A FIFO or a link to /dev/zero where a small JSON file is expected: refused at
    once (a FIFO blocked the reader; /dev/zero grew it to 4 GB)."""
    fifo = os.path.join(WORK, "fifo.safetensors")
    os.mkfifo(fifo)
    check("a FIFO named .safetensors", ["inspect", "--json", fifo], 1, 5, 128)


def write_json_streaming(path, obj, key, open_, close, items):
    """obj as JSON, with obj[key] written as open_ + the JSON texts of items + close"""
    head, tail = json.dumps(obj).split('"%s": null' % key)
    with open(path, "w") as f:
        f.write(head + '"%s": %s' % (key, open_))
        for i, item in enumerate(items):
            f.write("," + item if i else item)
        f.write(close + tail)


def check_index_junk(what, item, n):
    """An index whose junk member is an array of n items: refused."""
    d = os.path.join(WORK, "index-many-" + what)
    os.makedirs(d)
    write_json_streaming(os.path.join(d, "model.safetensors.index.json"),
                         {"metadata": {}, "weight_map": {}, "junk": None}, "junk", "[", "]",
                         itertools.repeat(item, n))
    check("inspect: an index of {:,} {}".format(n, what), ["inspect", "--json", d], 1, 10, 160,
          "invalid-index")


def converter_inputs():
    """A valid tiny checkpoint, then config/tokenizer files that claim or
    nest too much: convert must refuse quickly and write nothing."""
    base = os.path.join(WORK, "ckpt")
    r = subprocess.run([CLI, "sample", base], capture_output=True)
    if r.returncode != 0:
        global failed
        failed += 1
        print("FAIL sample checkpoint:", r.stderr.decode(errors="replace"))
        return
    with open(os.path.join(base, "config.json")) as f:
        config = json.load(f)

    def variant(tag, config_changes=None, files=None):
        d = os.path.join(WORK, "ckpt-" + tag)
        shutil.rmtree(d, ignore_errors=True)
        shutil.copytree(base, d)
        if config_changes is not None:
            c = dict(config)
            c.update(config_changes)
            with open(os.path.join(d, "config.json"), "w") as f:
                json.dump(c, f)
        for name, data in (files or {}).items():
            with open(os.path.join(d, name), "wb") as f:
                f.write(data)
        out = os.path.join(WORK, "out-%s.gguf" % tag)
        return d, out

    deep = b"[" * 10 ** 6 + b"]" * 10 ** 6
    cases = [
        ("vocab", "config.json claims 4,294,967,295 tokens",
         {"vocab_size": 4294967295}, None),
        ("head_dim", "config.json claims a head size of 2^31 (llama3 rope)",
         {"head_dim": 1 << 31}, None),
        ("deep_config", "config.json nested 10^6 deep", None, {"config.json": deep}),
        ("deep_tokenizer", "tokenizer.json nested 10^6 deep", None,
         {"tokenizer.json": deep}),
    ]
    hidden = b'{"a":' + b"[/*]*/" * 200000 + b"]" * 200000 + b"}"
    cases += [
        ("comment_config", "config.json nested 200,000 deep behind comments", None,
         {"config.json": hidden}),
        ("squote_tokenizer", "tokenizer.json nested behind single-quoted strings", None,
         {"tokenizer.json": b"{'a':" + b"[']'," * 200000 + b"]" * 200000 + b"}"}),
    ]
    for tag, label, changes, files in cases:
        d, out = variant(tag, changes, files)
        check("convert: " + label, ["convert", d, "-o", out, "-j", "1"], 1, 10, 256)
        if os.path.exists(out):
            global passed
            passed -= 1
            failed += 1
            print("FAIL     %s left at the target path" % out)

    # side files that are not regular files
    for name, kind, expect in (("config.json", "fifo", 1), ("tokenizer.json", "zero", 1),
                               ("tokenizer_config.json", "fifo", 1),
                               ("generation_config.json", "fifo", 0), ("README.md", "zero", 0)):
        d, out = variant("special-" + name, None, None)
        target = os.path.join(d, name)
        if os.path.exists(target):
            os.unlink(target)
        if kind == "fifo":
            os.mkfifo(target)
        else:
            os.symlink("/dev/zero", target)
        check("convert --dry-run: %s is %s" % (name, "a FIFO" if kind == "fifo" else "/dev/zero"),
              ["convert", d, "-o", out, "--dry-run"], expect, 10, 256)
    # counts that a list search made quadratic (minutes each before). The big JSON
    # files are written a member at a time: a big dict in this process would add
    # its memory to the next CLI child's ru_maxrss (Linux carries the parent's
    # resident set at fork into the child's peak)
    d = os.path.join(WORK, "index-many-shards")
    os.makedirs(d)
    write_json_streaming(os.path.join(d, "model.safetensors.index.json"),
                         {"metadata": {}, "weight_map": None}, "weight_map", "{", "}",
                         ('"t%d":"s%d.safetensors"' % (i, i) for i in range(160000)))
    check("inspect: an index naming 160,000 shards", ["inspect", "--json", d], 1, 10, 512)
    with open(os.path.join(base, "tokenizer_config.json")) as f:
        tcfg = json.load(f)
    d, out = variant("many-added", None, None)
    write_json_streaming(os.path.join(d, "tokenizer_config.json"),
                         dict(tcfg, added_tokens_decoder=None), "added_tokens_decoder", "{", "}",
                         ('"%d":{"content":"<x%d>","special":false}' % (10 ** 7 + i, i)
                          for i in range(400000)))
    check("convert --dry-run: 400,000 added_tokens_decoder entries",
          ["convert", d, "-o", out, "--dry-run"], 1, 10, 1536)
    d, out = variant("many-templates", None, None)
    write_json_streaming(os.path.join(d, "tokenizer_config.json"),
                         dict(tcfg, chat_template=None), "chat_template", "[", "]",
                         itertools.chain(['{"name":"default","template":"x"}'],
                                         ('{"name":"t%d","template":"x"}' % i
                                          for i in range(160000))))
    check("convert --dry-run: 160,000 named chat templates",
          ["convert", d, "-o", out, "--dry-run"], 0, 20, 1024)
    d = os.path.join(WORK, "many-shards")
    os.makedirs(d)
    for n in ("config.json", "tokenizer.json", "tokenizer_config.json"):
        shutil.copy(os.path.join(base, n), d)
    for i in range(10000):
        h = json.dumps({"x.%d" % i: {"dtype": "BF16", "shape": [1], "data_offsets": [0, 2]}}).encode()
        h += b" " * ((-len(h)) % 8)
        with open(os.path.join(d, "model-%06d.safetensors" % i), "wb") as f:
            f.write(struct.pack("<Q", len(h)) + h + b"\0\0")
    check("convert --dry-run: 10,000 shards without an index",
          ["convert", d, "-o", os.path.join(WORK, "many.gguf"), "--dry-run", "--allow-unknown"],
          1, 4, 512)

    # the audit of a small conversion against a config.json that claims the
    # most tokens the loader takes: the expected token list is not built
    # (it took 1.3 GB)
    gg = os.path.join(WORK, "base.gguf")
    if subprocess.run([CLI, "convert", base, "-o", gg], capture_output=True).returncode == 0:
        d, _ = variant("audit-vocab", {"vocab_size": 1 << 24}, None)
        check("audit: config.json claims 16,777,216 tokens beside a small GGUF",
              ["audit", d, gg], 1, 10, 128)
        # a GGUF of as many empty tokens (8 bytes each) as config.json claims, past
        # the count the audit rebuilds: not rebuilt (1.7 GB for 16,777,216)
        n = (1 << 20) + 1
        d, _ = variant("audit-empty-tokens", {"vocab_size": n}, None)
        empty = write("empty-tokens.gguf", lambda: gguf(
            gstr(b"general.architecture") + u32(8) + gstr(b"llama") +
            gstr(b"tokenizer.ggml.tokens") + u32(9) + u32(8) + u64(n) + u64(0) * n, 2))
        check("audit: a GGUF of 1,048,577 empty tokens, as many as config.json claims",
              ["audit", d, empty], 1, 10, 128)
    else:
        failed += 1
        print("FAIL converting the sample for the audit case")

    # JSON of many tiny values: json-glib keeps ~80 bytes a value, 40 times
    # the file ("[0,0,…]"); past 4,000,000 such units (22,000,000 in a
    # Safetensors header) a file is refused before it is parsed (a 126 MB
    # tokenizer.json took 5.1 GB)
    n = 5 * 10 ** 6
    for name, expect in (("tokenizer.json", 1), ("config.json", 1),
                         ("generation_config.json", 0)):
        d, out = variant("values-" + name, None, None)
        write_json_streaming(os.path.join(d, name), {"junk": None}, "junk", "[", "]",
                             itertools.repeat("0", n))
        check("convert --dry-run: %s of 5,000,000 values" % name,
              ["convert", d, "-o", out, "--dry-run"], expect, 10, 160)
    if os.path.exists(gg):
        d, _ = variant("values-audit", None, None)
        write_json_streaming(os.path.join(d, "tokenizer.json"), {"junk": None}, "junk", "[", "]",
                             itertools.repeat("0", n))
        check("audit: a tokenizer.json of 5,000,000 values (not compared, a warning)",
              ["audit", d, gg], 0, 10, 160)
    check_index_junk("values", "0", n)
    n = 23 * 10 ** 6
    body_len = len(b'{"junk":[') + 2 * (n - 1) + len(b'0]}')    # ~46 MB
    pad = (-body_len) % 8
    path = write("values.safetensors", struct.pack("<Q", body_len + pad),
                 lambda: b'{"junk":[' + b"0," * (n - 1) + b"0]}" + b" " * pad)
    check("inspect: a Safetensors header of 23,000,000 values", ["inspect", "--json", path],
          1, 10, 160, "header-too-large")

    # Objects cost json-glib ~550 bytes each (a hash table), 80 times
    # '{"k":0},': weighed as 7 values, a few MB of them are refused before
    # they are parsed (a 16 MB config.json of 1,990,000 took 1.1 GB and
    # 8 s; a 35 MB Safetensors header of 3,990,000, 2.2 GB and 14 s)
    n = 10 ** 6
    for name in ("config.json", "tokenizer.json"):
        d, out = variant("objects-" + name, None, None)
        write_json_streaming(os.path.join(d, name), {"junk": None}, "junk", "[", "]",
                             itertools.repeat('{"k":0}', n))
        check("convert --dry-run: %s of 1,000,000 objects" % name,
              ["convert", d, "-o", out, "--dry-run"], 1, 10, 160)
    check_index_junk("objects", '{"k":0}', n)
    n = 4 * 10 ** 6
    path = st_file("objects.safetensors", lambda: b'{"junk":[' + b'{"k":0},' * (n - 1) + b'{"k":0}]}')
    check("inspect: a Safetensors header of 4,000,000 objects", ["inspect", "--json", path],
          1, 10, 160, "header-too-large")

    # a long README.md: only its front matter is split into lines (100 MB
    # of them took 1.1 GB split whole), and a front matter over 4 MB is
    # left out (100 MB of "a: b" lines took 1.8 GB and 14 s)
    for tag, head, line in (("plain", "", "x: b\n"), ("front", "---\n", "a: b\n")):
        d, out = variant("readme-" + tag, None, None)
        with open(os.path.join(d, "README.md"), "w") as f:
            f.write(head)
            for _ in range(20):
                f.write(line * 10 ** 6)
            f.write(head)
        check("convert --dry-run: a README.md of 100 MB%s" % (", all front matter" if head else ""),
              ["convert", d, "-o", out, "--dry-run"], 0, 10, 200)

    d, _ = variant("special-index", None, None)
    idx = os.path.join(d, "model.safetensors.index.json")
    if os.path.exists(idx):
        os.unlink(idx)
    os.mkfifo(idx)
    check("inspect: the index is a FIFO", ["inspect", "--json", d], 1, 10, 256)


def main():
    shutil.rmtree(WORK, ignore_errors=True)
    os.makedirs(WORK)
    if SANITIZER:
        print("# TS_SANITIZER is set: peak RSS not checked, time limits x%d" % SLOW)
    try:
        claimed_counts()
        deep_nesting()
        special_files()
        giant_strings()
        many_tensors()
        converter_inputs()
    finally:
        shutil.rmtree(WORK, ignore_errors=True)
    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
