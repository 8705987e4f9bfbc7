#!/usr/bin/python3
# check_scale.py - what a model with many tensors costs beyond opening it
#
# Copyright 2026 The Tensorscope authors
# SPDX-License-Identifier: GPL-3.0-or-later
#
# Usage: check_scale.py CLI WORKDIR
#
# A GGUF of 100,000 tiny tensors (F32 [8], Llama-style names), written by
# this script:
#   - `inspect --json` is written as it is made: its peak RSS stays within
#     32 MB of the text `inspect`'s (the model itself), where the whole
#     report as a JSON tree took 5 times that; the output is the complete
#     report (measured with os.wait4's ru_maxrss of the CLI child; the RSS
#     bound is not checked when TS_SANITIZER is set, as ASan inflates
#     memory).
#   - `inspect --json` of a GGUF whose token list holds 4,194,304 strings
#     shows its first 8 without an index of all of them (32 MB): within
#     16 MB of `inspect`'s peak RSS.
#   - `convert --dry-run --json` and `audit --json` of a 1,024-layer
#     checkpoint (9,218 tensors) are written as they are made: within 8 MB
#     of the text output's peak RSS (19 and 29 MB more as JSON trees).
#   - `layout -o` SVG and PDF draw bands narrower than a pixel by the
#     pixel: the SVG stays under 1 MB and the PDF under 200 KB (a
#     rectangle and a <title> per tensor made a 50 MB SVG and a 450 kB
#     PDF); the PNG is written too.
#
# Ends with "N passed, M failed"; exits 1 if any failed.

import json
import os
import shutil
import struct
import subprocess
import sys

from tscheck import check, summary

CLI, WORK = sys.argv[1], sys.argv[2]
SANITIZER = bool(os.environ.get("TS_SANITIZER"))
N_TENSORS = 100_000
ROLES = ("attn_q", "attn_k", "ffn_up", "attn_norm")


def gstr(s):
    b = s.encode()
    return struct.pack("<Q", len(b)) + b


def write_many_tensors(path, n):
    """GGUF v3: general.architecture, then n descriptors of F32 [8]"""
    with open(path, "wb") as f:
        f.write(b"GGUF" + struct.pack("<IQQ", 3, n, 1) +
                gstr("general.architecture") + struct.pack("<I", 8) + gstr("llama"))
        # a few at a time: this process's memory would count in the CLI
        # children's peak RSS (Linux carries it over the fork)
        for start in range(0, n, 4096):
            f.write(b"".join(gstr("blk.%d.%s.weight" % (i // 4, ROLES[i % 4])) +
                             struct.pack("<IQIQ", 1, 8, 0, 32 * i)
                             for i in range(start, min(n, start + 4096))))
        f.write(b"\0" * ((-f.tell()) % 32))
        f.truncate(f.tell() + 32 * n)


def write_long_array(path, n):
    """GGUF v3: general.architecture, tokenizer.ggml.tokens of n one-byte
    strings (n a multiple of 4096), one tensor"""
    with open(path, "wb") as f:
        f.write(b"GGUF" + struct.pack("<IQQ", 3, 1, 2))
        f.write(gstr("general.architecture") + struct.pack("<I", 8) + gstr("llama"))
        f.write(gstr("tokenizer.ggml.tokens") + struct.pack("<IIQ", 9, 8, n))
        # a piece at a time, as above
        piece = (struct.pack("<Q", 1) + b"a") * 4096
        for _ in range(n // 4096):
            f.write(piece)
        f.write(gstr("token_embd.weight") + struct.pack("<IQIQ", 1, 8, 0, 0))
        f.write(b"\0" * ((-f.tell()) % 32 + 32))


def run(args, stdout):
    """Run the CLI; return (exit status, peak RSS in KB, stderr)."""
    with open(stdout, "wb") as out:
        p = subprocess.Popen([CLI] + args, stdin=subprocess.DEVNULL,
                             stdout=out, stderr=subprocess.PIPE)
        err = p.stderr.read()
        _, status, ru = os.wait4(p.pid, 0)
    return os.waitstatus_to_exitcode(status), ru.ru_maxrss, err.decode(errors="replace")


def inspect_json(gguf):
    text_out = os.path.join(WORK, "inspect.txt")
    json_out = os.path.join(WORK, "inspect.json")
    rc_text, rss_text, err = run(["inspect", gguf], text_out)
    check("inspect of %d tensors" % N_TENSORS, rc_text == 0, err[-400:])
    rc_json, rss_json, err = run(["inspect", "--json", gguf], json_out)
    check("inspect --json of %d tensors" % N_TENSORS, rc_json == 0, err[-400:])
    print("# peak RSS: inspect %d MB, inspect --json %d MB" % (rss_text // 1024, rss_json // 1024))
    if not SANITIZER:
        check("inspect --json takes no more memory than inspect, give or take 32 MB",
              rss_json <= rss_text + 32 * 1024,
              "%d MB against %d MB" % (rss_json // 1024, rss_text // 1024))
    # parsed only now: this process's memory would count in a later child's peak
    with open(json_out, "rb") as f:
        doc = json.load(f)
    check("inspect --json is the whole report",
          doc["tensor_count"] == N_TENSORS and len(doc["tensors"]) == N_TENSORS and
          doc["tensors"][-1]["name"] == "blk.%d.attn_norm.weight" % ((N_TENSORS - 1) // 4),
          "tensor_count %r" % doc.get("tensor_count"))


def long_array():
    path = os.path.join(WORK, "array.gguf")
    write_long_array(path, 1 << 22)
    rc_text, rss_text, err = run(["inspect", path], os.devnull)
    rc_json, rss_json, err_json = run(["inspect", "--json", path], os.devnull)
    print("# peak RSS with 4,194,304 strings: inspect %d MB, inspect --json %d MB"
          % (rss_text // 1024, rss_json // 1024))
    check("inspect and inspect --json of 4,194,304 strings",
          rc_text == 0 and rc_json == 0, (err + err_json)[-400:])
    if not SANITIZER:
        check("inspect --json builds no index of the strings it does not show",
              rss_json <= rss_text + 16 * 1024,
              "%d MB against %d MB" % (rss_json // 1024, rss_text // 1024))
    os.unlink(path)


def plan_and_audit():
    ckpt = os.path.join(WORK, "ckpt")
    gguf = os.path.join(WORK, "ckpt.gguf")
    r = subprocess.run([CLI, "sample", ckpt, "--layers", "1024", "--hidden", "16",
                        "--heads", "2", "--kv-heads", "1", "--intermediate", "16",
                        "--vocab", "1024", "--shards", "4"], capture_output=True)
    check("a 1,024-layer sample checkpoint", r.returncode == 0, r.stderr.decode()[-400:])
    r = subprocess.run([CLI, "convert", ckpt, "-o", gguf], capture_output=True)
    check("its conversion", r.returncode == 0, r.stderr.decode()[-400:])
    target = os.path.join(WORK, "not-written.gguf")
    for label, args in (("convert --dry-run", ["convert", ckpt, "-o", target, "--dry-run"]),
                        ("audit", ["audit", ckpt, gguf])):
        rc_text, rss_text, err = run(args, os.devnull)
        rc_json, rss_json, err_json = run(args + ["--json"], os.devnull)
        print("# peak RSS: %s %d MB, with --json %d MB" % (label, rss_text // 1024, rss_json // 1024))
        check("%s of 9,218 tensors, as text and as JSON" % label,
              rc_text == 0 and rc_json == 0, (err + err_json)[-400:])
        if not SANITIZER:
            check("%s --json takes no more memory than the text, give or take 8 MB" % label,
                  rss_json <= rss_text + 8 * 1024,
                  "%d MB against %d MB" % (rss_json // 1024, rss_text // 1024))
    shutil.rmtree(ckpt)


def layout_exports(gguf):
    for ext, limit in (("svg", 1024 * 1024), ("pdf", 200 * 1024), ("png", 200 * 1024)):
        out = os.path.join(WORK, "layout." + ext)
        rc, rss, err = run(["layout", gguf, "-o", out], os.devnull)
        size = os.path.getsize(out) if os.path.exists(out) else -1
        print("# layout %s: %d bytes, peak RSS %d MB" % (ext, size, rss // 1024))
        check("layout -o %s of %d tensors" % (ext.upper(), N_TENSORS), rc == 0, err[-400:])
        check("the %s is under %d kB" % (ext.upper(), limit // 1024), 0 < size < limit,
              "%d bytes" % size)


def main():
    shutil.rmtree(WORK, ignore_errors=True)
    os.makedirs(WORK)
    if SANITIZER:
        print("# TS_SANITIZER is set: peak RSS not checked")
    try:
        gguf = os.path.join(WORK, "many.gguf")
        write_many_tensors(gguf, N_TENSORS)
        long_array()
        plan_and_audit()
        layout_exports(gguf)
        inspect_json(gguf)
    finally:
        shutil.rmtree(WORK, ignore_errors=True)
    return summary()


if __name__ == "__main__":
    sys.exit(main())
