#!/usr/bin/python3
# check_inspect.py - run `CLI inspect --json` on every valid fixture
#
# Copyright 2026 The Tensorscope authors
# SPDX-License-Identifier: GPL-3.0-or-later
#
# Usage: check_inspect.py CLI FIXTUREDIR
#
# FIXTUREDIR is the output of tests/fixtures/gen_valid.py.  For each entry
# of FIXTUREDIR/expected.json, runs `CLI inspect --json PATH`, requires exit
# status 0 and compares every expected value; then checks the layout
# invariants of every part (regions sorted and contiguous from 0 to the
# part's size).  Prints one line per fixture and ends with "N passed,
# M failed"; exits 1 if any failed.

import json
import os
import subprocess
import sys

import numpy as np

TIMEOUT = 120
MAX_ERRORS = 25

ST_KINDS = {"length-prefix", "json-header", "tensor-data", "unexplained"}
GGUF_KINDS = {"fixed-header", "metadata", "tensor-info", "padding",
              "tensor-data", "unexplained"}
INT_TYPES = {"uint8", "int8", "uint16", "int16", "uint32", "int32", "uint64",
             "int64"}


def is_int(v):
    return isinstance(v, int) and not isinstance(v, bool)


def short(v, n=160):
    s = json.dumps(v, ensure_ascii=False)
    return s if len(s) <= n else s[:n] + "..."


class Fixture:
    def __init__(self, name):
        self.name = name
        self.errors = []

    def fail(self, msg):
        self.errors.append(msg)

    def eq(self, what, got, want):
        # json-glib integers are signed 64-bit: larger uint64 values are
        # reported as decimal strings (docs/inspect-json.md)
        if is_int(want) and want > 2**63 - 1 and got == str(want):
            return
        if is_int(want) and not is_int(got):
            self.fail("%s: expected integer %r, got %s" % (what, want,
                                                            short(got)))
        elif got != want:
            self.fail("%s: expected %s, got %s" % (what, short(want),
                                                   short(got)))


def same_path(a, b):
    try:
        return os.path.realpath(a) == os.path.realpath(b)
    except (TypeError, ValueError):
        return False


def value_eq(vtype, got, want, where, fx):
    """Compare a metadata value of GGUF type name vtype."""
    if vtype == "array":
        if not isinstance(got, dict):
            fx.fail("%s: expected an array object, got %s" % (where,
                                                              short(got)))
            return
        et = want["element_type"]
        fx.eq(where + ".element_type", got.get("element_type"), et)
        fx.eq(where + ".count", got.get("count"), want["count"])
        items = got.get("items")
        if not isinstance(items, list):
            fx.fail("%s.items: expected a list, got %s" % (where,
                                                           short(items)))
            return
        if len(items) != len(want["items"]):
            fx.fail("%s.items: expected %d items (first up to 8), got %d"
                    % (where, len(want["items"]), len(items)))
            return
        for i, (g, w) in enumerate(zip(items, want["items"])):
            value_eq(et, g, w, "%s.items[%d]" % (where, i), fx)
    elif vtype == "float32":
        # The number must denote the stored float32: accept any decimal
        # form that rounds to the same float32 (exact or shortest).
        if not isinstance(got, (int, float)) or isinstance(got, bool):
            fx.fail("%s: expected float32 %r, got %s" % (where, want,
                                                         short(got)))
        elif np.float32(got).tobytes() != np.float32(want).tobytes():
            fx.fail("%s: expected float32 %r, got %r" % (where, want, got))
    elif vtype == "float64":
        if not isinstance(got, (int, float)) or isinstance(got, bool) \
                or float(got) != want \
                or np.float64(got).tobytes() != np.float64(want).tobytes():
            fx.fail("%s: expected float64 %r, got %s" % (where, want,
                                                         short(got)))
    elif vtype == "bool":
        if got is not want:
            fx.fail("%s: expected %s, got %s" % (where, short(want),
                                                 short(got)))
    else:
        fx.eq(where, got, want)


def check_metadata(out, exp, fx):
    got = out.get("metadata")
    if not isinstance(got, list):
        fx.fail("metadata: expected a list, got %s" % short(got))
        return
    want = exp["metadata"]
    mode = exp.get("metadata_mode", "exact-ordered")
    keys = [m.get("key") if isinstance(m, dict) else None for m in got]
    if mode == "exact-ordered":
        if keys != [m["key"] for m in want]:
            fx.fail("metadata keys: expected %s, got %s"
                    % (short([m["key"] for m in want], 400),
                       short(keys, 400)))
            return
        pairs = list(zip(got, want))
    else:
        by_key = {}
        for m in got:
            if isinstance(m, dict):
                by_key.setdefault(m.get("key"), []).append(m)
        if mode == "exact-unordered" and \
                sorted(map(str, keys)) != sorted(m["key"] for m in want):
            fx.fail("metadata keys (any order): expected %s, got %s"
                    % (short(sorted(m["key"] for m in want), 400),
                       short(keys, 400)))
            return
        pairs = []
        for m in want:
            if m["key"] not in by_key:
                fx.fail("metadata: key %s missing" % short(m["key"]))
            else:
                pairs.append((by_key[m["key"]][0], m))
    for g, w in pairs:
        where = "metadata[%s]" % w["key"]
        fx.eq(where + ".type", g.get("type"), w["type"])
        if g.get("type") == w["type"]:
            value_eq(w["type"], g.get("value"), w["value"], where + ".value",
                     fx)


def check_tensors(out, exp, fx):
    got = out.get("tensors")
    if not isinstance(got, list):
        fx.fail("tensors: expected a list, got %s" % short(got))
        return
    want = exp["tensors"]
    gnames = [t.get("name") if isinstance(t, dict) else None for t in got]
    wnames = [t["name"] for t in want]
    if gnames != wnames:
        if sorted(map(str, gnames)) == sorted(wnames):
            fx.fail("tensor order: expected %s, got %s"
                    % (short(wnames, 300), short(gnames, 300)))
        else:
            fx.fail("tensor names: expected %s, got %s"
                    % (short(wnames, 300), short(gnames, 300)))
    by_name = {}
    for t in got:
        if isinstance(t, dict):
            by_name.setdefault(t.get("name"), t)
    for w in want:
        g = by_name.get(w["name"])
        if g is None:
            if sorted(map(str, gnames)) != sorted(wnames):
                fx.fail("tensor %s missing" % short(w["name"]))
            continue
        where = "tensor[%s]" % w["name"]
        gd, wd = g.get("dtype"), w["dtype"]
        if exp["format"] == "gguf" and isinstance(gd, str):
            # ggml names its types "q4_K", "bf16"...; the spec "Q4_K", "BF16"
            if gd.lower() != wd.lower():
                fx.fail("%s.dtype: expected %s, got %s" % (where, wd, gd))
        else:
            fx.eq(where + ".dtype", gd, wd)
        fx.eq(where + ".shape", g.get("shape"), w["shape"])
        fx.eq(where + ".part", g.get("part"), w["part"])
        fx.eq(where + ".offset", g.get("offset"), w["offset"])
        if w.get("size") is not None:
            fx.eq(where + ".size", g.get("size"), w["size"])


def check_parts(out, exp, fixdir, fx):
    got = out.get("parts")
    if not isinstance(got, list):
        fx.fail("parts: expected a list, got %s" % short(got))
        return
    want = exp["parts"]
    if len(got) != len(want):
        fx.fail("parts: expected %d parts (%s), got %d (%s)"
                % (len(want), short([p["name"] for p in want]), len(got),
                   short([p.get("name") for p in got
                          if isinstance(p, dict)])))
        return
    for i, (g, w) in enumerate(zip(got, want)):
        where = "parts[%d]" % i
        if not isinstance(g, dict):
            fx.fail("%s: not an object" % where)
            continue
        abs_want = os.path.abspath(os.path.join(fixdir, w["path"]))
        gp = g.get("path")
        if not isinstance(gp, str) or not os.path.isabs(gp) \
                or not same_path(gp, abs_want):
            fx.fail("%s.path: expected absolute path of %s, got %s"
                    % (where, abs_want, short(gp)))
        fx.eq(where + ".name", g.get("name"), w["name"])
        fx.eq(where + ".size", g.get("size"), w["size"])
        fx.eq(where + ".data_offset", g.get("data_offset"), w["data_offset"])
        check_regions(where, g.get("regions"), w["regions"], fx)


def check_regions(where, got, want, fx):
    if not isinstance(got, list):
        fx.fail("%s.regions: expected a list, got %s" % (where, short(got)))
        return
    for j, w in enumerate(want):
        if j >= len(got):
            fx.fail("%s.regions: missing region %d %s (got only %d regions)"
                    % (where, j, short(w), len(got)))
            return
        if got[j] != w:
            fx.fail("%s.regions[%d]: expected %s, got %s"
                    % (where, j, short(w), short(got[j])))
            return
    if len(got) > len(want):
        fx.fail("%s.regions: unexpected extra region(s) %s"
                % (where, short(got[len(want):], 300)))


def check_invariants(out, fx):
    """Layout invariants that hold for any valid file."""
    fmt = out.get("format")
    kinds = ST_KINDS if fmt == "safetensors" else GGUF_KINDS
    parts = out.get("parts")
    if not isinstance(parts, list) or not parts:
        fx.fail("invariant: no parts")
        return
    total = 0
    for i, p in enumerate(parts):
        if not isinstance(p, dict):
            continue
        where = "invariant parts[%d] (%s)" % (i, p.get("name"))
        size = p.get("size")
        if not is_int(size):
            fx.fail("%s: size is not an integer" % where)
            continue
        total += size
        path = p.get("path")
        if isinstance(path, str) and os.path.exists(path) \
                and os.path.getsize(path) != size:
            fx.fail("%s: size %d but the file has %d bytes"
                    % (where, size, os.path.getsize(path)))
        regs = p.get("regions")
        if not isinstance(regs, list) or not regs:
            fx.fail("%s: no regions" % where)
            continue
        pos = 0
        for j, r in enumerate(regs):
            if not isinstance(r, dict) or not is_int(r.get("offset")) \
                    or not is_int(r.get("length")):
                fx.fail("%s: region %d malformed: %s" % (where, j, short(r)))
                break
            if r.get("kind") not in kinds:
                fx.fail("%s: region %d has kind %s, not one of %s"
                        % (where, j, short(r.get("kind")), sorted(kinds)))
            if r["offset"] != pos:
                fx.fail("%s: region %d (%s) starts at %d, expected %d "
                        "(regions must be sorted, contiguous, from 0)"
                        % (where, j, r.get("kind"), r["offset"], pos))
                break
            if r["length"] < 0:
                fx.fail("%s: region %d has negative length" % (where, j))
                break
            pos = r["offset"] + r["length"]
        else:
            if pos != size:
                fx.fail("%s: regions end at %d, part size is %d"
                        % (where, pos, size))
        # every tensor of this part lies inside a tensor-data region
        data = [(r["offset"], r["offset"] + r["length"]) for r in regs
                if isinstance(r, dict) and r.get("kind") == "tensor-data"
                and is_int(r.get("offset")) and is_int(r.get("length"))]
        for t in out.get("tensors") or []:
            if not isinstance(t, dict) or t.get("part") != i:
                continue
            o, s = t.get("offset"), t.get("size")
            if not is_int(o) or not is_int(s) or s == 0:
                continue
            if not any(a <= o and o + s <= b for a, b in data):
                fx.fail("%s: tensor %s [%d, %d) is not inside a tensor-data "
                        "region" % (where, short(t.get("name")), o, o + s))
    if is_int(out.get("total_size")) and out["total_size"] != total:
        fx.fail("invariant: total_size %d != sum of part sizes %d"
                % (out["total_size"], total))
    ts = out.get("tensors")
    if isinstance(ts, list) and is_int(out.get("tensor_count")) \
            and out["tensor_count"] != len(ts):
        fx.fail("invariant: tensor_count %d != %d tensors listed"
                % (out["tensor_count"], len(ts)))
    if isinstance(ts, list) and is_int(out.get("tensor_data_size")) \
            and all(isinstance(t, dict) and t.get("dtype") != "unknown"
                    and is_int(t.get("size")) for t in ts):
        total = sum(t["size"] for t in ts)
        if total != out["tensor_data_size"]:
            fx.fail("invariant: tensor_data_size %d != sum of tensor sizes %d"
                    % (out["tensor_data_size"], total))


def check_one(cli, fixdir, rel, exp):
    fx = Fixture(rel)
    path = os.path.abspath(os.path.join(fixdir, rel))
    cmd = [cli, "inspect", "--json", path]
    try:
        p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           timeout=TIMEOUT)
    except subprocess.TimeoutExpired:
        fx.fail("timed out after %d s" % TIMEOUT)
        return fx
    except OSError as e:
        fx.fail("cannot run %s: %s" % (cli, e))
        return fx
    stderr = p.stderr.decode("utf-8", "replace").strip()
    if p.returncode != 0:
        how = ("killed by signal %d" % -p.returncode if p.returncode < 0
               else "exit status %d" % p.returncode)
        fx.fail("%s (expected 0); stdout: %s; stderr: %s"
                % (how, p.stdout[:400].decode("utf-8", "replace"),
                   stderr[:400]))
        return fx
    try:
        # "-0" is a valid rendering of the float -0.0; keep its sign.
        out = json.loads(p.stdout.decode("utf-8"),
                         parse_int=lambda s: -0.0 if s == "-0" else int(s))
    except (UnicodeDecodeError, ValueError) as e:
        fx.fail("stdout is not JSON (%s): %s" % (e, p.stdout[:300]))
        return fx
    if not isinstance(out, dict):
        fx.fail("stdout is not a JSON object: %s" % short(out))
        return fx

    fx.eq("format", out.get("format"), exp["format"])
    if exp["format"] == "gguf":
        fx.eq("gguf_version", out.get("gguf_version"), exp["gguf_version"])
    elif out.get("gguf_version") is not None:
        fx.fail("gguf_version present for a Safetensors checkpoint: %s"
                % short(out.get("gguf_version")))
    for key in ("total_size", "tensor_count", "parameter_count",
                "tensor_data_size"):
        if exp.get(key) is not None:
            fx.eq(key, out.get(key), exp[key])
    check_parts(out, exp, fixdir, fx)
    check_tensors(out, exp, fx)
    check_metadata(out, exp, fx)
    warnings = out.get("warnings")
    if not isinstance(warnings, list):
        fx.fail("warnings: expected a list, got %s" % short(warnings))
    elif exp.get("warnings") == "nonempty" and not warnings:
        fx.fail("warnings: expected at least one warning, got none")
    elif exp.get("warnings") == "empty" and warnings:
        fx.fail("warnings: expected none, got %s" % short(warnings, 300))
    if isinstance(warnings, list):
        # a warning must say where: which file, which bytes
        for needle in exp.get("warning_contains", []):
            if not any(needle in str(w) for w in warnings):
                fx.fail("warnings: none says %r: %s" % (needle, short(warnings, 300)))
    check_invariants(out, fx)
    return fx


def main():
    if len(sys.argv) != 3:
        sys.stderr.write("usage: check_inspect.py CLI FIXTUREDIR\n")
        return 2
    cli, fixdir = sys.argv[1], sys.argv[2]
    with open(os.path.join(fixdir, "expected.json")) as f:
        fixtures = json.load(f)["fixtures"]
    passed = failed = 0
    for rel, exp in fixtures.items():
        fx = check_one(cli, fixdir, rel, exp)
        if fx.errors:
            failed += 1
            print("FAIL %s  (%s)" % (rel, exp.get("description", "")))
            for e in fx.errors[:MAX_ERRORS]:
                print("    " + e)
            if len(fx.errors) > MAX_ERRORS:
                print("    ... and %d more" % (len(fx.errors) - MAX_ERRORS))
        else:
            passed += 1
            print("PASS %s" % rel)
        sys.stdout.flush()
    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
