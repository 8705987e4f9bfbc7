#!/usr/bin/python3
# check_layout_cli.py - `CLI layout PATH -o FILE.{svg,pdf,png}` on valid fixtures
#
# Copyright 2026 The Tensorscope authors
# SPDX-License-Identifier: GPL-3.0-or-later
#
# Usage: check_layout_cli.py CLI FIXTUREDIR OUTDIR
#
# For each fixture below, reads its regions and tensors with `inspect --json`
# and exports the diagram three times:
#   - SVG: must parse as XML, have the requested size in points, carry the
#     --title, and name every band (each region as "Kind · size", each tensor
#     by its name) in the invisible band layer;
#   - PNG: the IHDR must state the requested pixel size and the decoded
#     image must not be blank (enough non-background pixels, several colours);
#   - PDF: the MediaBox must be the requested size in points, with a page
#     that has content.
# Then checks the usage errors (exit 2) and that an invalid model fails with
# exit 1 and writes nothing. Prints one line per check, ends with
# "N passed, M failed" and exits 1 if any failed.

import json
import os
import re
import stat
import struct
import subprocess
import sys
import xml.etree.ElementTree as ET
import zlib

TIMEOUT = 120
SVG_NS = "{http://www.w3.org/2000/svg}"

FIXTURES = [
    "st_single.safetensors",
    "st_sharded",
    "st_all_dtypes.safetensors",
    "gguf_vocab.gguf",
    "gguf_all_ggml_types.gguf",
    "gguf_trailing.gguf",
    "st_trailing.safetensors",
]

KIND_LABELS = {
    "length-prefix": "Length prefix",
    "json-header": "JSON header",
    "fixed-header": "GGUF header",
    "metadata": "Metadata",
    "tensor-info": "Tensor descriptors",
    "padding": "Alignment padding",
    "tensor-data": "Tensor data",
    "unexplained": "Unexplained bytes",
}

passed = 0
failed = 0


def report(ok, what, detail=""):
    global passed, failed
    if ok:
        passed += 1
        print(f"ok   {what}")
    else:
        failed += 1
        print(f"FAIL {what}: {detail}")


def format_size(n):
    """g_format_size (): SI units, one decimal."""
    if n < 1000:
        return f"{n} byte" if n == 1 else f"{n} bytes"
    value = float(n)
    for unit in ("kB", "MB", "GB", "TB", "PB", "EB"):
        value /= 1000.0
        if value < 1000.0 or unit == "EB":
            return f"{value:.1f}\u00a0{unit}"  # a no-break space, as GLib writes
    raise AssertionError("unreachable")


def run(cli, *args):
    env = dict(os.environ, LC_ALL="C.UTF-8", LANGUAGE="C")
    return subprocess.run([cli, *args], capture_output=True, timeout=TIMEOUT, env=env)


def expected_labels(info):
    labels = []
    for part in info["parts"]:
        for r in part["regions"]:
            labels.append(f"{KIND_LABELS[r['kind']]} · {format_size(r['length'])}")
    labels += [t["name"] for t in info["tensors"]]
    return labels


def check_svg(name, path, info, width, height, title):
    try:
        root = ET.parse(path).getroot()
    except ET.ParseError as e:
        report(False, f"{name}: SVG parses as XML", str(e))
        return
    report(root.tag == SVG_NS + "svg", f"{name}: SVG root element", root.tag)
    report(root.get("width") == f"{width}pt" and root.get("height") == f"{height}pt",
           f"{name}: SVG is {width}×{height} pt", f"{root.get('width')}×{root.get('height')}")
    texts = {"".join(t.itertext()) for t in root.iter(SVG_NS + "text")}
    report(title in texts, f"{name}: SVG shows the title", sorted(texts)[:5])
    bands = next((g for g in root.iter(SVG_NS + "g") if g.get("id") == "bands"), None)
    if bands is None:
        report(False, f"{name}: SVG has a band layer", "no <g id=\"bands\">")
        return
    titles = [r.findtext(SVG_NS + "title") for r in bands.iter(SVG_NS + "rect")]
    missing = [label for label in expected_labels(info) if label not in titles]
    report(not missing, f"{name}: SVG names all {len(expected_labels(info))} bands",
           f"missing {missing[:5]}")


def png_pixels(data):
    """Decodes an 8-bit RGB/RGBA non-interlaced PNG into rows of bytes."""
    width, height, depth, ctype, _, _, interlace = struct.unpack(">IIBBBBB", data[16:29])
    assert depth == 8 and ctype in (2, 6) and interlace == 0, (depth, ctype, interlace)
    bpp = 4 if ctype == 6 else 3
    idat, pos = b"", 8
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        if kind == b"IDAT":
            idat += data[pos + 8:pos + 8 + length]
        pos += 12 + length
    raw = zlib.decompress(idat)
    stride = width * bpp
    rows, prev = [], bytearray(stride)
    for y in range(height):
        f = raw[y * (stride + 1)]
        line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - bpp] if i >= bpp else 0
            b = prev[i]
            c = prev[i - bpp] if i >= bpp else 0
            if f == 1:
                line[i] = (line[i] + a) & 0xff
            elif f == 2:
                line[i] = (line[i] + b) & 0xff
            elif f == 3:
                line[i] = (line[i] + (a + b) // 2) & 0xff
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                pred = a if pa <= pb and pa <= pc else (b if pb <= pc else c)
                line[i] = (line[i] + pred) & 0xff
        rows.append(bytes(line))
        prev = line
    return width, height, bpp, rows


def check_png(name, path, width, height):
    data = open(path, "rb").read()
    if data[:8] != b"\x89PNG\r\n\x1a\n" or data[12:16] != b"IHDR":
        report(False, f"{name}: PNG signature", data[:16])
        return
    w, h = struct.unpack(">II", data[16:24])
    report((w, h) == (width, height), f"{name}: PNG is {width}×{height} px", f"{w}×{h}")
    w, h, bpp, rows = png_pixels(data)
    colours = set()
    non_white = 0
    for row in rows:
        for x in range(0, w * bpp, bpp):
            px = row[x:x + 3]
            colours.add(px)
            if px != b"\xff\xff\xff":
                non_white += 1
    share = non_white / (w * h)
    report(share > 0.05 and len(colours) >= 8, f"{name}: PNG is not blank",
           f"{share:.1%} non-white pixels, {len(colours)} colours")


def check_pdf(name, path, width, height):
    data = open(path, "rb").read()
    report(data.startswith(b"%PDF-"), f"{name}: PDF signature", data[:8])
    boxes = re.findall(rb"/MediaBox\s*\[\s*([\d.]+)\s+([\d.]+)\s+([\d.]+)\s+([\d.]+)\s*\]", data)
    want = (0.0, 0.0, float(width), float(height))
    report(len(boxes) == 1 and tuple(float(v) for v in boxes[0]) == want,
           f"{name}: PDF MediaBox is {width}×{height} pt", boxes)
    streams = [len(m) for m in re.findall(rb"stream\r?\n(.*?)endstream", data, re.S)]
    report(b"/Font" in data and streams and max(streams) > 500, f"{name}: PDF page has content",
           f"streams {streams[:5]}")


def zlib_pages(data):
    """The PDF's content streams, inflated where they are compressed."""
    out = b""
    for m in re.finditer(rb"stream\r?\n(.*?)endstream", data, re.S):
        try:
            out += zlib.decompress(m.group(1))
        except zlib.error:
            out += m.group(1)
    return out


def check_errors(cli, fixtures, outdir):
    model = os.path.join(fixtures, FIXTURES[0])
    cases = [
        ("no -o", [model], 2),
        ("unknown extension", [model, "-o", os.path.join(outdir, "x.bmp")], 2),
        ("zero width", [model, "-o", os.path.join(outdir, "x.png"), "--width", "0"], 2),
        ("two paths", [model, model, "-o", os.path.join(outdir, "x.png")], 2),
    ]
    for what, args, status in cases:
        r = run(cli, "layout", *args)
        report(r.returncode == status, f"usage error ({what}) exits {status}",
               f"exit {r.returncode}: {r.stderr.decode(errors='replace')[:200]}")

    bad = os.path.join(outdir, "not-a-model.gguf")
    with open(bad, "wb") as f:
        f.write(b"GGUF\x07\x00\x00\x00" + b"\x00" * 32)
    out = os.path.join(outdir, "bad.svg")
    r = run(cli, "layout", bad, "-o", out)
    report(r.returncode == 1 and b"version 7" in r.stderr and not os.path.exists(out),
           "an invalid model exits 1 with the reader's error and writes nothing",
           f"exit {r.returncode}: {r.stderr.decode(errors='replace')[:200]}")

    # -o at a FIFO, or at a link to one: GIO's replace opens it first, and
    # that open waits for a reader for ever (it hung until killed)
    fifo = os.path.join(outdir, "fifo.svg")
    link = os.path.join(outdir, "fifo-link.svg")
    for p in (fifo, link):
        if os.path.lexists(p):
            os.unlink(p)
    os.mkfifo(fifo)
    os.symlink("fifo.svg", link)
    for what, target in (("a FIFO", fifo), ("a link to a FIFO", link)):
        try:
            r = run(cli, "layout", model, "-o", target)
            err = r.stderr.decode(errors="replace")
            report(r.returncode == 1 and f"“{target}” is not a regular file" in err,
                   f"-o at {what} exits 1 and names it", f"exit {r.returncode}: {err[:200]}")
        except subprocess.TimeoutExpired:
            report(False, f"-o at {what} exits 1 and names it", f"no answer in {TIMEOUT} s")
    report(stat.S_ISFIFO(os.stat(fifo).st_mode), "the FIFO is left as it was")


def main():
    if len(sys.argv) != 4:
        sys.exit("usage: check_layout_cli.py CLI FIXTUREDIR OUTDIR")
    cli, fixtures, outdir = sys.argv[1:]
    os.makedirs(outdir, exist_ok=True)

    for name in FIXTURES:
        path = os.path.join(fixtures, name)
        r = run(cli, "inspect", "--json", path)
        if r.returncode != 0:
            report(False, f"{name}: inspect", r.stderr.decode(errors="replace"))
            continue
        info = json.loads(r.stdout)
        stem = os.path.join(outdir, name.replace(".", "_"))
        title = f"Layout of {name}"
        jobs = [
            ("svg", ["--width", "1000", "--height", "700", "--title", title],
             lambda p: check_svg(name, p, info, 1000, 700, title)),
            ("png", ["--width", "640", "--height", "360"],
             lambda p: check_png(name, p, 640, 360)),
            ("pdf", ["--width", "842", "--height", "595"],
             lambda p: check_pdf(name, p, 842, 595)),
        ]
        for ext, args, check in jobs:
            out = f"{stem}.{ext}"
            if os.path.exists(out):
                os.unlink(out)
            r = run(cli, "layout", path, "-o", out, *args)
            ok = r.returncode == 0 and os.path.exists(out)
            report(ok, f"{name}: layout -o .{ext}",
                   f"exit {r.returncode}: {r.stderr.decode(errors='replace')[:300]}")
            if ok:
                check(out)

    # the description line is the window's subtitle: one tensor is "1 tensor"
    # (the export said "1 tensors"), and its count of files is the format's
    one = os.path.join(outdir, "one-tensor.safetensors")
    header = b'{"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}}'
    header += b" " * (-len(header) % 8)
    with open(one, "wb") as f:
        f.write(struct.pack("<Q", len(header)) + header + bytes(8))
    svg = os.path.join(outdir, "one-tensor.svg")
    r = run(cli, "layout", one, "-o", svg)
    desc = ET.parse(svg).getroot().findtext(SVG_NS + "desc") if r.returncode == 0 else None
    report(desc is not None and desc.startswith("Safetensors · ") and desc.endswith(" · 1 tensor"),
           "one-tensor.safetensors: the SVG says \"Safetensors · … · 1 tensor\"", repr(desc))

    # a page over 14,400 points on a side (200 inches: what PDF readers
    # open; Acrobat refuses more) is scaled down to fit, the drawing with it
    # (the text of the title at 0.72 times the size it has on a page
    # that fits: cairo folds the scale into every coordinate)
    sizes = {}
    for name, height, page in (("tall.pdf", 14000, (1600, 14000)), ("too-tall.pdf", 20000, (1152, 14400))):
        out = os.path.join(outdir, name)
        r = run(cli, "layout", os.path.join(fixtures, FIXTURES[0]), "-o", out, "--width", "1600", "--height", str(height))
        report(r.returncode == 0, f"layout --width 1600 --height {height} -o .pdf",
               f"exit {r.returncode}: {r.stderr.decode(errors='replace')[:300]}")
        if r.returncode == 0:
            check_pdf(name, out, *page)
            m = re.search(rb"([\d.]+) 0 0 -([\d.]+) [\d.]+ [\d.]+ Tm", zlib_pages(open(out, "rb").read()))
            sizes[name] = float(m.group(1)) if m else None
    if len(sizes) == 2:
        ratio = sizes["too-tall.pdf"] / sizes["tall.pdf"] if None not in sizes.values() else None
        report(ratio is not None and abs(ratio - 0.72) < 1e-3,
               "too-tall.pdf: the drawing is scaled by 14400 / 20000 = 0.72", f"title sizes {sizes}")

    check_errors(cli, fixtures, outdir)
    print(f"{passed} passed, {failed} failed")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
