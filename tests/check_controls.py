#!/usr/bin/python3
# check_controls.py - control characters from a file never reach the
# terminal or the SVG raw
#
# Copyright 2026 The Tensorscope authors
# SPDX-License-Identifier: GPL-3.0-or-later
#
# Usage: check_controls.py CLI WORKDIR
#
# Names and values in a model file may hold terminal control sequences
# (ESC [ 2 J clears the screen, ESC ] 0 ; … BEL sets the window title,
# U+009B is a one-character CSI) and characters XML 1.0 does not allow in
# any form (&#x1; included). Writes such files and requires:
#   - `inspect` (text) on a GGUF whose key, string value and tensor name
#     hold them: exit 0, no control character but \n and \t on stdout or
#     stderr, and each one shown as \xNN or \uNNNN;
#   - the same for the error message of a Safetensors file whose tensor
#     name holds them (exit 1);
#   - `layout -o FILE.svg`, with such a --title too: the SVG parses as XML
#     1.0 (expat refuses &#x1;) and its title and band titles show them as
#     \xNN.
#   - the JSON reports (inspect, convert --dry-run, audit, and the error
#     report) in the C locale: UTF-8 still, with every non-ASCII name as it
#     is (the text reports show '?' for what the locale cannot show).
#   - a checkpoint folder and output whose names are not UTF-8 (a file
#     name need not be): the GGUF's strings, the JSON reports and the SVG
#     are UTF-8 still, and a message names the file by its display name
#     (U+FFFD for the byte, as GLib's g_filename_display_name());
#   - a standard output that cannot be written (/dev/full, closed): every
#     command that prints exits 1 and says so on stderr, not 0 in silence.
# Prints one line per check, ends with "N passed, M failed", exits 1 if any
# failed.

import json
import os
import shutil
import struct
import subprocess
import sys
import xml.etree.ElementTree as ET

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "fixtures"))
import gen_valid as gv  # noqa: E402
from tscheck import check as tcheck, summary  # noqa: E402
from check_interop import parse_gguf  # noqa: E402

ESC_KEY = "k\x1b[2J"
ESC_VALUE = "\x1b]0;pwned\x07\x1b[31mred\u009b1m"
ESC_TENSOR = "t\x1b[31m<&>\"\x7f"

def check(cond, label, detail=""):
    tcheck(label, cond, detail)


def raw_controls(data):
    """The control bytes (C0 but \\n and \\t, DEL) and C1 characters in data."""
    bad = [b for b in data if (b < 0x20 and b not in (0x0a, 0x09)) or b == 0x7f]
    text = data.decode("utf-8", "replace")
    bad += [c for c in text if 0x80 <= ord(c) <= 0x9f]
    return bad


def run(cmd, locale="C.UTF-8"):
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=120,
                       env=dict(os.environ, LC_ALL=locale))
    return p.returncode, p.stdout, p.stderr


def json_in_c_locale(cmd, label):
    """Runs cmd in the C locale; its stdout parsed as UTF-8 JSON, or None."""
    rc, out, err = run(cmd, locale="C")
    try:
        return json.loads(out.decode("utf-8"))
    except ValueError as e:
        check(False, label + " is UTF-8 JSON in the C locale", "rc %d: %s %r" % (rc, e, out[:200]))
        return None


def strings(node):
    """Every string in a parsed JSON document."""
    if isinstance(node, str):
        yield node
    elif isinstance(node, dict):
        for k, v in node.items():
            yield k
            yield from strings(v)
    elif isinstance(node, list):
        for v in node:
            yield from strings(v)


def main():
    cli, work = sys.argv[1], sys.argv[2]
    os.makedirs(work, exist_ok=True)

    # a GGUF: the key, a string value and a tensor name hold controls
    gguf = os.path.join(work, "controls.gguf")
    kvs = [("general.architecture", gv.GGUF_STRING, "llama"),
           (ESC_KEY, gv.GGUF_STRING, ESC_VALUE)]
    tensor = gv.GgTensor(ESC_TENSOR, [8], gv.GGML_F32, bytes(32))
    blob, _ = gv.gguf_build(3, kvs, [tensor])
    with open(gguf, "wb") as f:
        f.write(blob)
    rc, out, err = run([cli, "inspect", gguf])
    check(rc == 0, "inspect controls.gguf exits 0", "rc %d: %r" % (rc, err[-300:]))
    check(not raw_controls(out) and not raw_controls(err),
          "inspect controls.gguf writes no raw control character",
          repr(raw_controls(out) + raw_controls(err))[:200])
    text = out.decode("utf-8", "replace")
    for shown in ("k\\x1b[2J", "\\x1b]0;pwned\\x07\\x1b[31mred\\u009b1m", "t\\x1b[31m<&>\"\\u007f"):
        check(shown in text, "inspect shows %r" % shown)

    # the JSON report stays JSON and keeps the names as they are
    rc, out, err = run([cli, "inspect", "--json", gguf])
    try:
        doc = json.loads(out)
    except ValueError as e:
        check(False, "inspect --json controls.gguf is JSON", str(e))
    else:
        names = [t.get("name") for t in doc.get("tensors", [])]
        keys = [m.get("key") for m in doc.get("metadata", [])]
        check(ESC_TENSOR in names and ESC_KEY in keys,
              "inspect --json keeps the names as they are", repr(names + keys)[:300])

    # a Safetensors error that quotes the tensor's name
    st = os.path.join(work, "controls.safetensors")
    header = ('{"a\\u001b]0;pwn\\u0007\\u001b[2J":'
              '{"dtype":"F32","shape":[3],"data_offsets":[0,8]}}').encode()
    header += b" " * (-len(header) % 8)
    with open(st, "wb") as f:
        f.write(struct.pack("<Q", len(header)) + header + bytes(8))
    rc, out, err = run([cli, "inspect", st])
    check(rc == 1, "inspect controls.safetensors exits 1", "rc %d" % rc)
    check(not raw_controls(out) and not raw_controls(err),
          "its error writes no raw control character", repr(err[-300:]))
    check("a\\x1b]0;pwn\\x07\\x1b[2J" in err.decode("utf-8", "replace"),
          "its error shows the name escaped", repr(err[-300:]))

    # the SVG export: XML 1.0 allows no C0 character but \t \n \r, not even
    # as a character reference
    svg = os.path.join(work, "controls.svg")
    rc, out, err = run([cli, "layout", gguf, "-o", svg, "--title", "x\x01y"])
    check(rc == 0, "layout controls.gguf -o controls.svg exits 0", repr(err[-300:]))
    try:
        root = ET.parse(svg).getroot()
    except (ET.ParseError, OSError) as e:
        check(False, "the SVG parses as XML 1.0", str(e))
    else:
        check(True, "the SVG parses as XML 1.0")
        titles = [el.text or "" for el in root.iter() if el.tag.endswith("}title")]
        check("x\\x01y" in titles, "the SVG title shows \\x01", repr(titles[:3]))
        check(any("t\\x1b[31m<&>\"\\u007f" in t for t in titles),
              "a band title shows the tensor name escaped", repr(titles)[:300])

    # non-ASCII names in the C locale: the JSON reports keep them
    wide = "Modèle 中文 \U0001f999"
    gguf = os.path.join(work, "wide.gguf")
    kvs = [("general.architecture", gv.GGUF_STRING, "llama"),
           ("general.name", gv.GGUF_STRING, wide)]
    blob, _ = gv.gguf_build(3, kvs, [gv.GgTensor("poids_é", [8], gv.GGML_F32, bytes(32))])
    with open(gguf, "wb") as f:
        f.write(blob)
    doc = json_in_c_locale([cli, "inspect", "--json", gguf], "inspect --json wide.gguf")
    if doc is not None:
        found = set(strings(doc))
        check(wide in found and "poids_é" in found,
              "inspect --json keeps non-ASCII names in the C locale", repr(sorted(found))[:300])
    rc, out, err = run([cli, "inspect", gguf], locale="C")
    check(rc == 0 and b"Mod?le" in out, "inspect (text) shows '?' for what the C locale cannot show",
          repr(out[:300]))

    missing = os.path.join(work, "absent-é.gguf")
    doc = json_in_c_locale([cli, "inspect", "--json", missing], "inspect --json absent-é.gguf")
    if doc is not None:
        check(any("absent-é.gguf" in t for t in strings(doc)),
              "the JSON error report names absent-é.gguf as it is", repr(doc)[:300])

    ck = os.path.join(work, "Lama-modèle")
    shutil.rmtree(ck, ignore_errors=True)   # sample refuses a folder that is not empty
    rc, out, err = run([cli, "sample", ck])
    check(rc == 0, "sample Lama-modèle exits 0", repr(err[-300:]))
    doc = json_in_c_locale([cli, "convert", ck, "-o", os.path.join(work, "x.gguf"),
                            "--dry-run", "--json"], "convert --dry-run --json")
    if doc is not None:
        check(any("modèle" in t.lower() for t in strings(doc)),
              "convert --dry-run --json keeps the folder's name in the C locale",
              repr(sorted(set(strings(doc))))[:300])
    out_gguf = os.path.join(work, "Lama-modèle.gguf")
    rc, out, err = run([cli, "convert", ck, "-o", out_gguf, "--force"])
    check(rc == 0, "convert Lama-modèle exits 0", repr(err[-300:]))
    doc = json_in_c_locale([cli, "audit", "--json", ck, out_gguf], "audit --json")
    if doc is not None:
        check(any("modèle" in t.lower() for t in strings(doc)),
              "audit --json keeps the names in the C locale", repr(sorted(set(strings(doc))))[:300])

    # Unicode noncharacters in names: cairo refuses them as invalid UTF-8
    # (the layout failed: "input string not valid UTF-8"), XML 1.0 has no
    # U+FFFE or U+FFFF
    odd = ["a\ufffeb", "c\uffffd", "e\U0010ffff", "f\ufdd0g"]
    gguf_odd = os.path.join(work, "nonchars.gguf")
    blob, _ = gv.gguf_build(3, [("general.architecture", gv.GGUF_STRING, "llama"),
                                ("general.name", gv.GGUF_STRING, "\ufffe" + odd[3])],
                            [gv.GgTensor(n, [64], gv.GGML_F32, bytes(256)) for n in odd])
    with open(gguf_odd, "wb") as f:
        f.write(blob)
    for ext in ("svg", "pdf", "png"):
        target = os.path.join(work, "nonchars." + ext)
        rc, out, err = run([cli, "layout", gguf_odd, "-o", target, "--title", "t\uffff"])
        check(rc == 0 and os.path.getsize(target) > 0,
              "layout nonchars.gguf -o nonchars.%s exits 0" % ext, repr(err[-300:]))
    try:
        root = ET.parse(os.path.join(work, "nonchars.svg")).getroot()
    except (ET.ParseError, OSError) as e:
        check(False, "the noncharacters' SVG parses as XML 1.0", str(e))
    else:
        titles = [el.text or "" for el in root.iter() if el.tag.endswith("}title")]
        check(all(any(n.replace("\ufffe", "\\ufffe").replace("\uffff", "\\uffff") in t for t in titles)
                  for n in odd),
              "the noncharacters' SVG parses as XML 1.0 and names every tensor", repr(titles)[:300])
    rc, out, err = run([cli, "inspect", "--json", gguf_odd])
    try:
        names = [t["name"] for t in json.loads(out)["tensors"]]
    except (ValueError, KeyError) as e:
        check(False, "inspect --json nonchars.gguf is JSON", str(e))
    else:
        check(names == odd, "inspect --json keeps noncharacters as they are", repr(names))

    # names that are not UTF-8 (a file name need not be): the GGUF's
    # strings, the JSON reports, the SVG and the messages are UTF-8 still,
    # the bad byte shown as \xff or U+FFFD (each carried it raw)
    bad_dir = os.path.join(os.fsencode(work), b"Lama\xff-3B")
    shutil.rmtree(bad_dir, ignore_errors=True)
    shutil.copytree(os.fsencode(ck), bad_dir)
    bad_gguf = os.path.join(os.fsencode(work), b"bad\xff\xfe.gguf")
    rc, out, err = run([cli, "convert", bad_dir, "-o", bad_gguf, "--force"])
    check(rc == 0, "convert Lama\\xff-3B exits 0", repr(err[-300:]))
    # parse_gguf keeps a byte that is not UTF-8 as a lone surrogate
    g = parse_gguf(os.fsdecode(bad_gguf))
    strs = [kv["key"] + "=" + kv["value"] if isinstance(kv["value"], str) else kv["key"]
            for kv in g["kvs"]] + [t["name"] for t in g["tensors"]]
    raw = [t for t in strs if any("\udc80" <= c <= "\udcff" for c in t)]
    check(not raw, "the GGUF's strings are UTF-8", repr(raw)[:300])
    check(any("Lama\ufffd" in t for t in strs), "the GGUF's strings say U+FFFD for the byte",
          repr(strs)[:300])
    for args in (["inspect", "--json", bad_gguf], ["inspect", "--json", bad_dir],
                 ["convert", bad_dir, "-o", bad_gguf, "--force", "--dry-run", "--json"],
                 ["audit", "--json", bad_dir, bad_gguf]):
        rc, out, err = run([cli] + args)
        try:
            json.loads(out.decode("utf-8"))
            ok = rc == 0
        except ValueError as e:
            ok, err = False, str(e).encode()
        check(ok, "%s of a name that is not UTF-8: UTF-8 JSON" % " ".join(a for a in args if isinstance(a, str)),
              "rc %d: %r" % (rc, err[-300:]))
    bad_svg = os.path.join(work, "bad-name.svg")
    rc, out, err = run([cli, "layout", bad_gguf, "-o", bad_svg])
    try:
        ET.parse(bad_svg)
        ok = rc == 0
    except (ET.ParseError, OSError) as e:
        ok, err = False, str(e).encode()
    check(ok, "layout of a name that is not UTF-8: the SVG parses", repr(err[-300:]))
    rc, out, err = run([cli, "inspect", os.path.join(os.fsencode(work), b"absent\xff.gguf")])
    try:
        text = err.decode("utf-8")
    except UnicodeDecodeError as e:
        text = "not UTF-8: %s" % e
    check(rc == 1 and "absent\ufffd.gguf" in text, "the message names the file by its display name (U+FFFD)",
          repr(err[-300:]))

    # output that cannot be written: the run failed
    def run_to(cmd, where):
        kwargs = {"stdout": subprocess.DEVNULL}
        if where == "/dev/full":
            kwargs["stdout"] = open("/dev/full", "wb")
        else:
            kwargs["preexec_fn"] = lambda: os.close(1)
        p = subprocess.run(cmd, stderr=subprocess.PIPE, timeout=120,
                           env=dict(os.environ, LC_ALL="C.UTF-8"), **kwargs)
        return p.returncode, p.stderr.decode("utf-8", "replace")

    for args in (["inspect", gguf], ["inspect", "--json", gguf],
                 ["convert", ck, "-o", os.path.join(work, "y.gguf"), "--dry-run"],
                 ["convert", ck, "-o", os.path.join(work, "y.gguf"), "--dry-run", "--json"],
                 ["audit", ck, out_gguf], ["audit", "--json", ck, out_gguf], ["--version"]):
        for where, why in (("/dev/full", "No space left on device"), ("closed", "Bad file descriptor")):
            rc, err = run_to([cli] + args, where)
            check(rc == 1 and "could not write the output: " + why in err,
                  "%s to %s: exit 1, says why" % (" ".join(a if a[0] == "-" else os.path.basename(a)
                                                         for a in args), where),
                  "rc %d: %r" % (rc, err[-300:]))

    return summary()


if __name__ == "__main__":
    sys.exit(main())
