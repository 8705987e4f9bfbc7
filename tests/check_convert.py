#!/usr/bin/env python3
"""Failure paths of `tensorscope-cli convert`: each must fail with a clear
error, leave no file at the target path and no temporary file behind, and
leave the source untouched. And `tensorscope-cli sample` into a folder that
is not empty: refused without --force, and with it nothing of the earlier
checkpoint's weights left beside the new ones.

usage: check_convert.py CLI WORKDIR
"""
import json
import os
import re
import resource
import shutil
import signal
import struct
import subprocess
import sys
import time

from tscheck import check, summary, digest, leftovers, wait_for_part

CLI, WORK = sys.argv[1], sys.argv[2]


def run(*args, env=None, timeout=120):
    e = dict(os.environ)
    e.update(env or {})
    return subprocess.run([CLI] + list(args), capture_output=True, text=True,
                          timeout=timeout, env=e)


def fresh(name, *sample_args):
    d = os.path.join(WORK, name)
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(WORK, exist_ok=True)
    r = run("sample", d, *sample_args)
    assert r.returncode == 0, r.stderr
    return d


def expect_failure(name, model, out, want_in_message, env=None, extra=()):
    before = digest(model)
    r = run("convert", model, "-o", out, *extra, env=env)
    outdir = os.path.dirname(out) if os.path.isdir(os.path.dirname(out)) else WORK
    problems = []
    if r.returncode != 1:
        problems.append("exit %d, expected 1" % r.returncode)
    if want_in_message.lower() not in r.stderr.lower():
        problems.append("message lacks %r: %s" % (want_in_message, r.stderr.strip()))
    if os.path.exists(out) and not name.startswith("existing"):
        problems.append("output file left at the target path")
    if leftovers(outdir):
        problems.append("temporary files left: %s" % leftovers(outdir))
    if digest(model) != before:
        problems.append("the source changed")
    check(name, not problems, "; ".join(problems))


def rewrite_single_shard(model, drop=None, add=None):
    """An independent Safetensors rewrite of model.safetensors."""
    path = os.path.join(model, "model.safetensors")
    raw = open(path, "rb").read()
    n = struct.unpack("<Q", raw[:8])[0]
    header = json.loads(raw[8:8 + n])
    data = raw[8 + n:]
    meta = header.pop("__metadata__", None)
    items = sorted(header.items(), key=lambda kv: kv[1]["data_offsets"][0])
    out_header, blobs, off = {}, [], 0
    for name, e in items:
        if name == drop:
            continue
        b = data[e["data_offsets"][0]:e["data_offsets"][1]]
        out_header[name] = dict(e, data_offsets=[off, off + len(b)])
        blobs.append(b)
        off += len(b)
    if add:
        b = b"\0" * 8
        out_header[add] = {"dtype": "BF16", "shape": [4], "data_offsets": [off, off + 8]}
        blobs.append(b)
    if meta:
        out_header["__metadata__"] = meta
    h = json.dumps(out_header).encode()
    h += b" " * (-len(h) % 8)
    open(path, "wb").write(struct.pack("<Q", len(h)) + h + b"".join(blobs))


SAMPLE_CONFIGS = {"config.json", "generation_config.json", "special_tokens_map.json",
                  "tokenizer.json", "tokenizer_config.json"}


def sample_into_existing():
    """sample refuses a folder that exists and is not empty (a second
    sample, a real checkpoint) unless --force, which replaces what a sample
    writes and removes stale model*.safetensors shards and index only."""
    d = os.path.join(WORK, "sample-again")
    shutil.rmtree(d, ignore_errors=True)
    r = run("sample", d, "--shards", "3")
    check("sample into a new folder", r.returncode == 0, r.stderr)
    before = digest(d)
    names_before = sorted(os.listdir(d))
    r = run("sample", d, "--shards", "1")
    check("sample into a folder that is not empty: exit 1, says so and names --force",
          r.returncode == 1 and "not empty" in r.stderr and "--force" in r.stderr, r.stderr)
    check("... the folder untouched, no temporary file",
          digest(d) == before and sorted(os.listdir(d)) == names_before, str(os.listdir(d)))

    # files that are not a checkpoint's weights stay, whatever their names
    kept = {"README.md": "notes", "model.safetensors.bak": "old", "adapter_model.safetensors": "x"}
    for name, text in kept.items():
        with open(os.path.join(d, name), "w") as f:
            f.write(text)
    r = run("sample", d, "--shards", "1", "--force")
    check("--force: written", r.returncode == 0, r.stderr)
    check("--force: the three stale shards and the index gone, nothing else",
          set(os.listdir(d)) == SAMPLE_CONFIGS | {"model.safetensors"} | set(kept),
          str(sorted(os.listdir(d))))
    check("--force: the other files as they were",
          all(open(os.path.join(d, n)).read() == t for n, t in kept.items()))
    r = run("sample", d, "--shards", "2", "--force")
    check("--force again, 2 shards: model.safetensors gone, the new index and shards there",
          r.returncode == 0 and set(os.listdir(d)) == SAMPLE_CONFIGS | set(kept) | {
              "model-00001-of-00002.safetensors", "model-00002-of-00002.safetensors",
              "model.safetensors.index.json"}, str(sorted(os.listdir(d))))
    r = run("convert", d, "--dry-run")
    check("... and it is a checkpoint that converts", r.returncode == 0, r.stderr.strip()[-300:])

    empty = os.path.join(WORK, "sample-empty")
    shutil.rmtree(empty, ignore_errors=True)
    os.makedirs(empty)
    r = run("sample", empty)
    check("sample into an existing empty folder: written", r.returncode == 0
          and SAMPLE_CONFIGS <= set(os.listdir(empty)), r.stderr)
    hidden = os.path.join(WORK, "sample-hidden")
    shutil.rmtree(hidden, ignore_errors=True)
    os.makedirs(hidden)
    open(os.path.join(hidden, ".git"), "w").close()
    r = run("sample", hidden)
    check("sample into a folder holding only a hidden file: refused",
          r.returncode == 1 and os.listdir(hidden) == [".git"], r.stderr)
    # a write that fails (here past a 1 MiB file size limit): the message
    # names the file asked for (it said "Error writing to file: …", no
    # name, or named the hidden temporary file), no temporary file is left
    # and a folder the sample made is gone again
    def limited():
        resource.setrlimit(resource.RLIMIT_FSIZE, (1 << 20, resource.RLIM_INFINITY))
    made = os.path.join(WORK, "sample-limited", "inner")
    shutil.rmtree(os.path.dirname(made), ignore_errors=True)
    for where in (made, empty):
        shutil.rmtree(empty, ignore_errors=True)
        os.makedirs(empty)
        p = subprocess.run([CLI, "sample", where], capture_output=True, text=True, timeout=120,
                           preexec_fn=limited)
        want = "cannot write %s: File too large" % os.path.join(where, "model-00001-of-00002.safetensors")
        left = os.listdir(where) if os.path.exists(where) else None
        check("sample%s past a file size limit: exit 1, names the shard, %s" % (
              " into an empty folder" if where == empty else "", "leaves it empty" if where == empty
              else "the folder it made is gone"),
              p.returncode == 1 and want in p.stderr and left == ([] if where == empty else None),
              "exit %d: %s; left %s" % (p.returncode, p.stderr.strip()[-300:], left))
    shutil.rmtree(os.path.dirname(made), ignore_errors=True)
    r = run("sample", "--help")
    check("sample --help tells of --force", "--force" in r.stdout, r.stdout)
    for x in (d, empty, hidden):
        shutil.rmtree(x, ignore_errors=True)


def sample_values():
    """A sample option value that makes no model is a usage error (exit 2,
    as a malformed one is), its message naming the option; nothing written."""
    d = os.path.join(WORK, "bad-values")
    for opt, val in (("--shards", "100"), ("--shards", "0"), ("--heads", "3"), ("--vocab", "100"),
                     ("--kv-heads", "3"), ("--hidden", "0"), ("--intermediate", "0"),
                     ("--layers", "2000"), ("--layers", "-1"), ("--seed", "-1")):
        shutil.rmtree(d, ignore_errors=True)
        r = run("sample", d, opt, val)
        check(f"sample {opt} {val}: exit 2, the message names {opt}, nothing written",
              r.returncode == 2 and r.stderr.startswith(f"tensorscope-cli: {opt}")
              and not os.path.exists(d), "exit %d: %s" % (r.returncode, r.stderr.strip()))


def main():
    os.makedirs(WORK, exist_ok=True)
    sample_into_existing()
    sample_values()
    out_dir = os.path.join(WORK, "out")
    shutil.rmtree(out_dir, ignore_errors=True)
    os.makedirs(out_dir)

    m = fresh("missing-shard", "--shards", "3")
    os.remove(os.path.join(m, "model-00002-of-00003.safetensors"))
    expect_failure("missing shard", m, os.path.join(out_dir, "a.gguf"), "model-00002-of-00003")

    m = fresh("missing-tensor", "--shards", "1")
    rewrite_single_shard(m, drop="model.layers.1.self_attn.k_proj.weight")
    expect_failure("missing tensor", m, os.path.join(out_dir, "b.gguf"), "blk.1.attn_k.weight")

    m = fresh("unknown-tensor", "--shards", "1")
    rewrite_single_shard(m, add="model.layers.0.mystery.weight")
    expect_failure("unknown tensor", m, os.path.join(out_dir, "c.gguf"), "mystery")
    r = run("convert", m, "-o", os.path.join(out_dir, "c2.gguf"), "--allow-unknown")
    check("unknown tensor allowed explicitly", r.returncode == 0 and "mystery" in r.stderr,
          r.stderr)

    m = fresh("unsupported-arch", "--shards", "1")
    cfg = json.load(open(os.path.join(m, "config.json")))
    cfg["architectures"] = ["GPT2LMHeadModel"]
    json.dump(cfg, open(os.path.join(m, "config.json"), "w"))
    expect_failure("unsupported architecture", m, os.path.join(out_dir, "d.gguf"), "GPT2LMHeadModel")

    # a side file missing: named, with the folder it was looked for in
    for side in ("config.json", "tokenizer.json"):
        m = fresh("no-" + side.split(".")[0], "--shards", "1")
        os.remove(os.path.join(m, side))
        expect_failure("no %s" % side, m, os.path.join(out_dir, "e.gguf"),
                       "%s: there is no such file in %s" % (side, os.path.abspath(m)))

    # what the reader noticed about the checkpoint, the conversion tells
    # too: bytes after a shard's last tensor (which the safetensors library
    # refuses) on stderr and in the plan's JSON warnings
    m = fresh("junk-after-data", "--shards", "2")
    with open(os.path.join(m, "model-00002-of-00002.safetensors"), "ab") as f:
        f.write(b"\x5a" * 4096)
    r = run("convert", m, "-o", os.path.join(out_dir, "junk.gguf"))
    check("bytes after a shard's data: converted, with the reader's warning",
          r.returncode == 0 and "model-00002-of-00002.safetensors: 4,096 bytes after the last tensor"
          in r.stderr, "exit %d: %s" % (r.returncode, r.stderr.strip()[-300:]))
    r = run("convert", m, "-o", os.path.join(out_dir, "junk2.gguf"), "--dry-run", "--json")
    try:
        warned = [w for w in json.loads(r.stdout)["warnings"] if "after the last tensor" in w]
    except (ValueError, KeyError) as e:
        warned = [str(e)]
    check("bytes after a shard's data: the plan's JSON warns", len(warned) == 1, repr(warned))

    good = fresh("good")
    expect_failure("unwritable target", good, "/proc/tensorscope-test.gguf", "/proc")

    existing = os.path.join(out_dir, "existing.gguf")
    open(existing, "wb").write(b"keep me")
    expect_failure("existing target without --force", good, existing, "--force")
    check("existing target untouched", open(existing, "rb").read() == b"keep me")
    r = run("convert", good, "-o", existing, "--force")
    check("--force replaces", r.returncode == 0 and open(existing, "rb").read(4) == b"GGUF", r.stderr)

    # names that start with '-', after "--": GOption keeps that "--" in
    # the arguments then, which made every command refuse them ("wrong
    # number of arguments")
    dash = os.path.join(WORK, "-dash")
    shutil.rmtree(dash, ignore_errors=True)
    shutil.copytree(good, dash)
    dash_out = "-dash.gguf"
    r = subprocess.run([os.path.abspath(CLI), "convert", "-o", dash_out, "--force", "--", "-dash"], cwd=WORK,
                       capture_output=True, text=True, timeout=120)
    check("convert -o -dash.gguf -- -dash: converts",
          r.returncode == 0 and os.path.exists(os.path.join(WORK, dash_out)), r.stderr)
    for args in (["inspect", "--", dash_out], ["layout", "-o", "-dash.svg", "--", dash_out],
                 ["audit", "--", "-dash", dash_out]):
        r = subprocess.run([os.path.abspath(CLI)] + args, cwd=WORK, capture_output=True, text=True, timeout=120)
        check("%s: exit 0" % " ".join(args), r.returncode == 0, r.stderr)

    # --json to a full stdout: the file is written, the run fails and says why
    with open("/dev/full", "w") as full:
        r2 = subprocess.run([CLI, "convert", good, "-o", existing, "--force", "--json"],
                            stdout=full, stderr=subprocess.PIPE, text=True, timeout=120)
    check("convert --json to a full stdout: exit 1, 'could not write the output', the file written",
          r2.returncode == 1 and "could not write the output" in r2.stderr
          and open(existing, "rb").read(4) == b"GGUF", "exit %d: %s" % (r2.returncode, r2.stderr))

    # --json on success: what was written, read back from the file itself
    r = run("convert", good, "-o", existing, "--force", "--json", "--outtype", "q8_0")
    try:
        result = json.loads(r.stdout)
    except ValueError:
        result = None
    head = open(existing, "rb").read(24)
    check("convert --json: one object saying the file, size, type and tensor count written",
          r.returncode == 0 and isinstance(result, dict)
          and result.get("output") == os.path.abspath(existing)
          and result.get("size") == os.path.getsize(existing)
          and result.get("outtype") == "q8_0"
          and result.get("tensors") == struct.unpack_from("<Q", head, 8)[0]
          and isinstance(result.get("milliseconds"), int),
          "exit %d: %r %s" % (r.returncode, r.stdout[:400], r.stderr.strip()))

    # what is at the target path decides before any work, --force or not:
    # never one of the checkpoint's own files, a folder, or a device or pipe
    shard = os.path.join(good, "model-00001-of-00002.safetensors")
    shard_bytes = open(shard, "rb").read()
    r = run("convert", good, "-o", shard, "--force")
    check("--force onto the checkpoint's own shard: refused, the shard intact",
          r.returncode == 1 and "checkpoint's own model-00001-of-00002.safetensors" in r.stderr
          and open(shard, "rb").read() == shard_bytes and not leftovers(good), r.stderr)
    link = os.path.join(out_dir, "config-link.json")
    os.symlink(os.path.join(good, "config.json"), link)
    r = run("convert", good, "-o", link, "--force")
    check("--force onto a link to the checkpoint's config.json: refused",
          r.returncode == 1 and "checkpoint's own config.json" in r.stderr
          and json.load(open(os.path.join(good, "config.json"))), r.stderr)
    os.remove(link)
    extra = os.path.join(good, "additional_chat_templates")
    os.makedirs(extra)
    with open(os.path.join(extra, "tool_use.jinja"), "w") as f:
        f.write("{{ messages }}")
    r = run("convert", good, "-o", os.path.join(extra, "tool_use.jinja"), "--force")
    check("--force onto one of additional_chat_templates/: refused, the template intact",
          r.returncode == 1 and "checkpoint's own additional_chat_templates/tool_use.jinja"
          in r.stderr and open(os.path.join(extra, "tool_use.jinja")).read() == "{{ messages }}",
          r.stderr)
    shutil.rmtree(extra)
    fifo = os.path.join(out_dir, "pipe.gguf")
    os.mkfifo(fifo)
    r = run("convert", good, "-o", fifo, "--force")
    check("--force onto a pipe: refused, the pipe left as it is",
          r.returncode == 1 and "not a regular file" in r.stderr and os.path.exists(fifo)
          and not os.path.isfile(fifo), r.stderr)
    os.remove(fifo)
    folder = os.path.join(out_dir, "a-folder.gguf")
    os.makedirs(folder)
    r = run("convert", good, "-o", folder, "--force", "--dry-run")
    check("a folder as the target, even in a dry run: refused", r.returncode == 1 and
          "is a folder" in r.stderr and os.path.isdir(folder), r.stderr)
    r = run("convert", good, "-o", existing, "--dry-run")
    check("an existing target without --force, in a dry run: refused",
          r.returncode == 1 and "--force" in r.stderr, r.stderr)
    dangling = os.path.join(out_dir, "dangling.gguf")
    os.symlink(os.path.join(out_dir, "nowhere.gguf"), dangling)
    expect_failure("existing link to nothing, without --force", good, dangling, "--force")
    check("existing link to nothing: still a link", os.path.islink(dangling))
    # a link to a file: --force replaces the file it leads to (in its own
    # folder, on its own file system), and the link stays a link
    elsewhere = os.path.join(out_dir, "elsewhere")
    os.makedirs(elsewhere, exist_ok=True)
    real = os.path.join(elsewhere, "real.gguf")
    with open(real, "wb") as f:
        f.write(b"old")
    linked = os.path.join(out_dir, "linked.gguf")
    os.symlink(real, linked)
    r = run("convert", good, "-o", linked, "--force")
    check("--force onto a link to a file: the file it leads to is replaced, the link stays",
          r.returncode == 0 and os.path.islink(linked) and os.readlink(linked) == real
          and open(real, "rb").read(4) == b"GGUF" and not leftovers(out_dir)
          and not leftovers(elsewhere), r.stderr)
    os.remove(linked)
    shutil.rmtree(elsewhere)
    for jobs in ("100000", "257", "-5"):
        r = run("convert", good, "-o", os.path.join(out_dir, "j.gguf"), "--jobs", jobs)
        check(f"--jobs {jobs}: a usage error, nothing written", r.returncode == 2 and
              "--jobs" in r.stderr and not os.path.exists(os.path.join(out_dir, "j.gguf"))
              and not leftovers(out_dir), r.stderr)
        r = run("audit", good, good, "--jobs", jobs)
        check(f"audit --jobs {jobs}: a usage error", r.returncode == 2 and "--jobs" in r.stderr,
              r.stderr)
    # 0 is the default (convert: three workers per processor, audit: one),
    # and --help says so
    r = run("convert", good, "-o", os.path.join(out_dir, "j0.gguf"), "--jobs", "0")
    check("--jobs 0: the default, written", r.returncode == 0
          and os.path.exists(os.path.join(out_dir, "j0.gguf")), r.stderr)
    r = run("audit", good, os.path.join(out_dir, "j0.gguf"), "--jobs", "0")
    check("audit --jobs 0: one per processor, passes", r.returncode == 0, r.stderr)
    for cmd, default in (("convert", "three per processor, at most 24"), ("audit", "one per processor")):
        r = run(cmd, "--help")
        check(f"{cmd} --help: --jobs 0 is {default}",
              re.search(r"--jobs=N\s+.*0: " + default, r.stdout) is not None, r.stdout)

    # a file where the folder belongs, a link to nothing: said as such
    r = run("convert", os.path.join(good, "config.json"), "-o", os.path.join(out_dir, "f.gguf"))
    check("a file given as the checkpoint folder: 'is not a folder'",
          r.returncode == 1 and "is not a folder" in r.stderr, r.stderr)
    nowhere = os.path.join(out_dir, "link-to-nothing.gguf")
    os.symlink(os.path.join(out_dir, "no-such-file.gguf"), nowhere)
    r = run("inspect", nowhere)
    check("inspect of a link to nothing: 'No such file or directory'",
          r.returncode == 1 and "link to nothing: No such file or directory" in r.stderr, r.stderr)
    os.remove(nowhere)
    loop_a, loop_b = os.path.join(out_dir, "loop-a.gguf"), os.path.join(out_dir, "loop-b.gguf")
    os.symlink(loop_b, loop_a)
    os.symlink(loop_a, loop_b)
    r = run("inspect", loop_a)
    check("inspect of a loop of links: said so (not 'a link to nothing: Too many levels…')",
          r.returncode == 1 and "loop-a.gguf: a link in a loop of links" in r.stderr, r.stderr)
    os.remove(loop_a)
    os.remove(loop_b)

    # one descriptor a shard: more shards than the soft open-file limit
    many = fresh("many-shards", "--layers", "40", "--hidden", "64", "--heads", "2",
                 "--kv-heads", "1", "--intermediate", "128", "--vocab", "600", "--shards", "300")
    hard = resource.getrlimit(resource.RLIMIT_NOFILE)[1]
    p = subprocess.run([CLI, "convert", many, "-o", os.path.join(out_dir, "many.gguf")],
                       capture_output=True, text=True, timeout=300,
                       preexec_fn=lambda: resource.setrlimit(resource.RLIMIT_NOFILE, (128, hard)))
    check("300 shards under a soft limit of 128 open files: converts",
          p.returncode == 0 and os.path.exists(os.path.join(out_dir, "many.gguf")),
          p.stderr.strip()[-300:])

    expect_failure("disk full", good, os.path.join(out_dir, "full.gguf"), "No space",
                   env={"TENSORSCOPE_TEST_FAIL_WRITES_AFTER": "100000"})
    r = run("convert", good, "-o", os.path.join(out_dir, "full.gguf"), "--json",
            env={"TENSORSCOPE_TEST_FAIL_WRITES_AFTER": "100000"})
    check("disk full, --json: the error's code is no-space",
          r.returncode == 1 and '"code" : "no-space"' in r.stdout, r.stdout + r.stderr)

    # a file size limit (ulimit -f) below the output's size: the write past
    # it fails (EFBIG), is reported and cleaned up after (SIGXFSZ killed
    # the process without a word and left the hidden .part file)
    fsize = os.path.join(out_dir, "fsize.gguf")
    for outtype in ("f32", "bf16"):
        p = subprocess.run([CLI, "convert", good, "-o", fsize, "--outtype", outtype],
                           capture_output=True, text=True, timeout=300,
                           preexec_fn=lambda: resource.setrlimit(resource.RLIMIT_FSIZE,
                                                                 (1 << 20, resource.RLIM_INFINITY)))
        check("%s under a 1 MiB file size limit: exit 1, \"File too large\", no file, "
              "no temporary file" % outtype,
              p.returncode == 1 and "File too large" in p.stderr and not os.path.exists(fsize) and
              not leftovers(out_dir), "exit %d: %s; left: %s" % (p.returncode, p.stderr.strip()[-300:],
                                                                 leftovers(out_dir)))

    # cancellation mid-write: SIGINT while a larger conversion runs. The
    # converter pauses 20 ms after each 4 MiB block (a test hook), so the
    # signal, sent once the temporary file exists, lands mid-way however
    # fast the disk; tests/check_faults.py covers random points at full speed.
    big = fresh("big", "--layers", "8", "--hidden", "1024", "--heads", "16",
                "--kv-heads", "4", "--intermediate", "4096", "--shards", "2")
    target = os.path.join(out_dir, "cancelled.gguf")
    before = digest(big)
    slow = {"TENSORSCOPE_TEST_BLOCK_DELAY_US": "20000"}

    def interrupted(sig, *extra):
        """a slowed conversion of big, sent SIG once its temporary file exists"""
        p = subprocess.Popen([CLI, "convert", big, "-o", target, "--outtype", "q8_0", "--jobs", "1"]
                             + list(extra),
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                             env=dict(os.environ, **slow))
        started = wait_for_part(out_dir, p)
        p.send_signal(sig)
        out, err = p.communicate(timeout=60)
        return p, started, out + err

    p, started, err = interrupted(signal.SIGINT)
    check("cancel: the signal landed while writing", started)
    # cleaned up, it ends by the signal it caught, as an uncaught one would
    # (a shell's 130), so that a script's loop over conversions stops
    check("cancel: ended by SIGINT with a message that nothing was written",
          p.returncode == -signal.SIGINT and "cancelled: nothing was written to" in err.lower(),
          "exit %d: %s" % (p.returncode, err.strip()))
    check("cancel: no output, no temp file, source untouched",
          not os.path.exists(target) and not leftovers(out_dir) and digest(big) == before,
          str(os.listdir(out_dir)))

    # the terminal closed (SIGHUP): stopped as for Ctrl+C, nothing left
    for sig in (signal.SIGHUP, signal.SIGTERM):
        p, started, err = interrupted(sig)
        check("%s: ended by it, no output, no temp file" % sig.name,
              started and p.returncode == -sig and "cancelled" in err and
              not os.path.exists(target) and not leftovers(out_dir),
              "exit %d: %s %s" % (p.returncode, err.strip(), os.listdir(out_dir)))

    p, started, out = interrupted(signal.SIGTERM, "--json")
    check("cancel, --json: the error's code is cancelled, the message says nothing was written",
          started and p.returncode == -signal.SIGTERM and '"code" : "cancelled"' in out
          and "cancelled: nothing was written to" in out, out)

    # Ctrl+C in a terminal reaches the whole foreground process group: a
    # shell script looping over conversions must stop, not go on with the
    # next (bash goes on when the child it waits for exits normally)
    script = ('for i in 1 2; do "$0" convert "$1" -o "$2" --outtype q8_0 --jobs 1; '
              'echo "next $?"; done; echo done')
    p = subprocess.Popen(["bash", "-c", script, CLI, big, target], stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True, env=dict(os.environ, **slow),
                         start_new_session=True)
    started = wait_for_part(out_dir, p)
    os.killpg(p.pid, signal.SIGINT)
    out, err = p.communicate(timeout=60)
    check("Ctrl+C in a shell loop of conversions stops the loop",
          started and p.returncode == -signal.SIGINT and "next" not in out and
          not os.path.exists(target) and not leftovers(out_dir),
          "exit %d, stdout %r: %s %s" % (p.returncode, out, err.strip()[-300:], os.listdir(out_dir)))

    # nohup: a hangup the command was started to ignore does not stop it
    if os.path.exists(target):                 # left by a failed check above
        os.remove(target)
    p = subprocess.Popen([CLI, "convert", big, "-o", target, "--outtype", "q8_0", "--jobs", "1"],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                         env=dict(os.environ, **slow),
                         preexec_fn=lambda: signal.signal(signal.SIGHUP, signal.SIG_IGN))
    started = wait_for_part(out_dir, p)
    p.send_signal(signal.SIGHUP)
    _, err = p.communicate(timeout=120)
    check("nohup: an ignored SIGHUP leaves the conversion running to its end",
          started and p.returncode == 0 and os.path.exists(target),
          "exit %d: %s" % (p.returncode, err.strip()))
    if os.path.exists(target):
        os.remove(target)

    # killed outright mid-write: only a hidden .part file may remain, never the target
    p = subprocess.Popen([CLI, "convert", big, "-o", target, "--outtype", "q8_0", "--jobs", "1"],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=dict(os.environ, **slow))
    started = wait_for_part(out_dir, p)
    p.kill()
    p.wait()
    check("SIGKILL: killed while writing", started)
    check("SIGKILL: nothing at the target path", not os.path.exists(target))
    for n in leftovers(out_dir):
        os.remove(os.path.join(out_dir, n))

    worker_priority(big, target, out_dir, slow)
    split_output(good, big, many, slow)
    return summary()


def thread_nices(pid):
    """{thread id: (name, nice value)} of a running process, from /proc"""
    threads = {}
    for tid in os.listdir("/proc/%d/task" % pid):
        try:
            with open("/proc/%d/task/%s/stat" % (pid, tid)) as f:
                stat = f.read()
        except OSError:                        # the thread has just ended
            continue
        name = stat[stat.index("(") + 1:stat.rindex(")")]
        # after "pid (comm)": state is field 3, nice field 19
        threads[int(tid)] = (name, int(stat[stat.rindex(")") + 2:].split()[16]))
    return threads


def worker_priority(big, target, out_dir, slow):
    """The converter's workers yield the processors to the program's own
    main thread (the wizard's window) and to other programs: they run at
    nice 10, the rest of the process at the nice value it was started at.
    The wizard's stall test subtracts a main thread's wait for a processor
    from its stalls; this is what keeps that wait short."""
    p = subprocess.Popen([CLI, "convert", big, "-o", target, "--outtype", "q8_0", "--jobs", "3"],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                         env=dict(os.environ, **slow))
    started = wait_for_part(out_dir, p)
    base = os.getpriority(os.PRIO_PROCESS, 0)
    threads = {}
    deadline = time.monotonic() + 20
    # until all three workers are there and have lowered their priority
    while started and p.poll() is None and time.monotonic() < deadline:
        now = thread_nices(p.pid)
        workers = [n for name, n in now.values() if name == "ts-convert"]
        if workers or not threads:
            threads = now
        if len(workers) == 3 and min(workers) >= 10:
            break
        time.sleep(0.005)
    main_nice = threads.get(p.pid, (None, None))[1]
    p.send_signal(signal.SIGTERM)
    p.communicate(timeout=60)
    workers = sorted(n for name, n in threads.values() if name == "ts-convert")
    check("workers: the three run at nice 10, the main thread at the nice it was given",
          started and workers == [max(base, 10)] * 3 and main_nice == base,
          "workers %s, main thread %s, started at %d" % (workers, main_nice, base))
    check("workers: the cancelled conversion left nothing",
          not os.path.exists(target) and not leftovers(out_dir), str(os.listdir(out_dir)))
    if os.path.exists(target):                 # it ran to its end: a check failed
        os.remove(target)


def gguf_py_split(sizes, max_tensors, max_size, no_tensor_first):
    """gguf-py's GGUFWriter.add_tensor_info, re-derived: the tensor indices
    of each file"""
    files = [[]] + ([[]] if no_tensor_first else [])
    for i, n in enumerate(sizes):
        last = files[-1]
        if last and ((max_tensors and len(last) >= max_tensors) or
                     (max_size and sum(sizes[j] for j in last) + n > max_size)):
            files.append([])
        files[-1].append(i)
    return files


def split_output(good, big, many, slow):
    """--split-max-tensors / --split-max-size: the set is written whole or
    not at all (tests/check_interop.py compares its bytes with llama.cpp's
    own split output)."""
    sdir = os.path.join(WORK, "split")
    shutil.rmtree(sdir, ignore_errors=True)
    os.makedirs(sdir)
    target = os.path.join(sdir, "s.gguf")

    def names(n):
        return [os.path.join(sdir, "s-%05d-of-%05d.gguf" % (k, n)) for k in range(1, n + 1)]

    def present():
        return sorted(os.listdir(sdir))

    r = run("convert", good, "-o", target, "--split-max-tensors", "4", "--dry-run", "--json")
    plan = json.loads(r.stdout) if r.returncode == 0 else {}
    tensors = plan.get("tensors", [])
    files = plan.get("files", [])
    n = (len(tensors) + 3) // 4
    check("split dry run: files of at most 4 tensors, in order, sizes adding up, nothing written",
          r.returncode == 0 and [f["name"] for f in files] == names(n) and
          [t["file"] for t in tensors] == [i // 4 for i in range(len(tensors))] and
          [f["tensors"] for f in files] == [min(4, len(tensors) - 4 * k) for k in range(n)] and
          sum(f["size"] for f in files) == plan["predicted_size"] and not present(),
          r.stdout[-400:] + r.stderr)

    # how the tensors are shared out, against gguf-py's rule re-derived
    sizes = [t["size"] for t in tensors]
    for max_t, max_s, first in ((4, 0, False), (0, sum(sizes) // 3, False), (0, min(sizes) - 1, False),
                                (0, sum(sizes) // 4, True), (0, 0, True), (5, sum(sizes) // 2, True)):
        args = ["--split-max-tensors", str(max_t), "--split-max-size", str(max_s)]
        args += ["--no-tensor-first-split"] if first else []
        r = run("convert", good, "-o", target, "--dry-run", "--json", *args)
        want = gguf_py_split(sizes, max_t, max_s, first)
        got = json.loads(r.stdout) if r.returncode == 0 else {}
        files_got = [[i for i, t in enumerate(got.get("tensors", [])) if t["file"] == k]
                     for k in range(len(got.get("files", [])))]
        check("split %s: the files gguf-py's writer makes (%d)" % (" ".join(args), len(want)),
              files_got == want and [f["tensors"] for f in got["files"]] == [len(f) for f in want] and
              [f["name"] for f in got["files"]] == (names(len(want)) if len(want) > 1 else [target]),
              "got %s, want %s: %s" % (files_got, want, r.stderr.strip()[-300:]))

    r = run("convert", good, "-o", sdir, "--split-max-tensors", "4")
    check("split: a folder given as the output name is refused",
          r.returncode == 1 and "is a folder" in r.stderr and not present(),
          "exit %d: %s %s" % (r.returncode, r.stderr.strip(), present()))

    # a file of the set already there: refused up front, without --force
    os.makedirs(sdir, exist_ok=True)
    with open(names(n)[1], "w") as f:
        f.write("mine")
    r = run("convert", good, "-o", target, "--split-max-tensors", "4")
    check("split: an existing second file without --force is refused, by name, nothing written",
          r.returncode == 1 and os.path.basename(names(n)[1]) in r.stderr and "already exists" in r.stderr
          and present() == [os.path.basename(names(n)[1])] and open(names(n)[1]).read() == "mine",
          "exit %d: %s %s" % (r.returncode, r.stderr.strip(), present()))
    os.remove(names(n)[1])

    r = run("convert", good, "-o", target, "--split-max-tensors", "4", "--json")
    result = json.loads(r.stdout) if r.returncode == 0 else {}
    i = run("inspect", "--json", names(n)[-1])
    parts = [p_["name"] for p_ in json.loads(i.stdout)["parts"]] if i.returncode == 0 else []
    check("split: written as the named set, which reads back whole from its last file",
          r.returncode == 0 and present() == [os.path.basename(x) for x in names(n)] and
          result.get("output") == names(n)[0] and [f["name"] for f in result.get("files", [])] == names(n)
          and parts == [os.path.basename(x) for x in names(n)] and
          len(json.loads(i.stdout)["tensors"]) == len(tensors),
          "exit %d: %s %s %s" % (r.returncode, r.stderr.strip(), present(), i.stderr.strip()))
    r = run("audit", good, names(n)[0])
    check("split: the whole set audits", r.returncode == 0 and "PASS" in r.stdout, r.stderr.strip()[-300:])
    # a file of the set gone: the audit says so, not that every tensor of
    # the other files was lost
    os.remove(names(n)[1])
    for opened in (names(n)[0], names(n)[-1]):
        r = run("audit", good, opened)
        check("split, a file missing, audited at %s: refused, naming the missing file" % os.path.basename(opened),
              r.returncode == 1 and "split set of %d" % n in r.stderr and
              os.path.basename(names(n)[1]) in r.stderr and "tensor-mapping" not in r.stdout,
              "exit %d: %s %s" % (r.returncode, r.stdout[-300:], r.stderr.strip()[-300:]))
    shutil.rmtree(sdir)
    os.makedirs(sdir)

    # more files than a set Tensorscope reads back (8,192): refused before writing
    huge = fresh("9000-tensors", "--layers", "1000", "--hidden", "16", "--heads", "2", "--kv-heads", "1",
                 "--intermediate", "16", "--vocab", "600")
    r = run("convert", huge, "-o", target, "--split-max-tensors", "1")
    check("split into 9,003 files: refused up front, nothing written",
          r.returncode == 1 and "make 9003 files" in r.stderr and "at most 8192" in r.stderr and not present(),
          "exit %d: %s %s" % (r.returncode, r.stderr.strip(), present()))
    r = run("convert", huge, "-o", target, "--split-max-tensors", "2", "--dry-run")
    check("split into 4,502 files: planned", r.returncode == 0 and "in 4502 files" in r.stdout,
          "exit %d: %s" % (r.returncode, r.stderr.strip()[-300:]))
    shutil.rmtree(huge)

    r = run("convert", good, "-o", target, "--split-max-tensors", "100000")
    check("split limits the model fits within: one file, plainly named, with a warning",
          r.returncode == 0 and present() == ["s.gguf"] and "not split" in r.stderr,
          "exit %d: %s %s" % (r.returncode, r.stderr.strip(), present()))
    os.remove(target)

    for bad, why in ((["--split-max-size", "2GB"], "is not a size"),
                     (["--split-max-size", "5MK"], "is not a size"),
                     (["--split-max-size", "K"], "is not a size"),
                     (["--split-max-size", "-5"], "is not a size"),
                     (["--split-max-tensors", "-1"], "is not a number of tensors")):
        r = run("convert", good, "-o", target, *bad)
        check("split: %s refused as a usage error" % " ".join(bad),
              r.returncode == 2 and why in r.stderr and not present(), r.stderr.strip())

    # the disk fills while the set is written: no file of it is left, in
    # the first file or (metadata only, that one is whole) in the second
    for extra in ([], ["--no-tensor-first-split"]):
        r = run("convert", good, "-o", target, "--split-max-tensors", "4", *extra,
                env={"TENSORSCOPE_TEST_FAIL_WRITES_AFTER": "100000"})
        check("split%s, disk full: exit 1, no file of the set, no temporary file" % " ".join([""] + extra),
              r.returncode == 1 and "no space" in r.stderr.lower() and not present(),
              "exit %d: %s %s" % (r.returncode, r.stderr.strip(), present()))

    # a set of more files than the soft open-file limit
    hard = resource.getrlimit(resource.RLIMIT_NOFILE)[1]
    r = run("convert", many, "-o", target, "--dry-run", "--json")
    n_many = len(json.loads(r.stdout)["tensors"]) if r.returncode == 0 else 0
    p = subprocess.run([CLI, "convert", many, "-o", target, "--split-max-tensors", "1"],
                       capture_output=True, text=True, timeout=300,
                       preexec_fn=lambda: resource.setrlimit(resource.RLIMIT_NOFILE, (128, hard)))
    check("split into %d files under a soft limit of 128 open files" % n_many,
          n_many > 128 and p.returncode == 0 and present() == [os.path.basename(x) for x in names(n_many)],
          "exit %d: %s" % (p.returncode, p.stderr.strip()[-300:]))
    shutil.rmtree(sdir)
    os.makedirs(sdir)

    r = run("convert", big, "-o", target, "--outtype", "q8_0", "--split-max-tensors", "8", "--dry-run", "--json")
    n_big = len(json.loads(r.stdout)["files"]) if r.returncode == 0 else 0

    def slowed(*extra):
        return subprocess.Popen([CLI, "convert", big, "-o", target, "--outtype", "q8_0", "--jobs", "1",
                                 "--split-max-tensors", "8"] + list(extra),
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                env=dict(os.environ, **slow))

    p = slowed()
    started = wait_for_part(sdir, p)
    p.send_signal(signal.SIGINT)
    _, err = p.communicate(timeout=60)
    check("split, cancelled mid-write: ended by SIGINT, no file of the set, no temporary file",
          started and p.returncode == -signal.SIGINT and not present(),
          "exit %d: %s %s" % (p.returncode, err.strip(), present()))

    # a file of the set appears while the conversion runs: the set is not
    # moved into place beside it, and the files already moved go again
    p = slowed()
    started = wait_for_part(sdir, p)
    last = os.path.join(sdir, "s-%05d-of-%05d.gguf" % (n_big, n_big))
    with open(last, "w") as f:
        f.write("mine")
    _, err = p.communicate(timeout=120)
    check("split: a file of the set made meanwhile stops the set, which is not left half in place",
          started and n_big > 1 and p.returncode == 1 and os.path.basename(last) in err and
          present() == [os.path.basename(last)] and open(last).read() == "mine",
          "exit %d: %s %s" % (p.returncode, err.strip(), present()))
    os.remove(last)

    # with --force over an earlier set, a file that cannot be replaced (a
    # folder put in its place meanwhile) leaves the earlier set as it was
    for k, name in enumerate(names(n_big)):
        with open(name, "w") as f:
            f.write("old %d" % k)
    p = slowed("--force")
    started = wait_for_part(sdir, p)
    os.remove(last)
    os.mkdir(last)
    _, err = p.communicate(timeout=120)
    kept = all(os.path.isfile(name) and open(name).read() == "old %d" % k
               for k, name in enumerate(names(n_big)[:-1]))
    check("split --force: a file that cannot be replaced leaves the earlier set as it was",
          started and p.returncode == 1 and os.path.basename(last) in err and kept and
          os.path.isdir(last) and present() == sorted(os.path.basename(x) for x in names(n_big)),
          "exit %d: %s %s" % (p.returncode, err.strip(), present()))
    os.rmdir(last)

    # --force over the earlier set: replaced whole, nothing kept aside
    p = slowed("--force")
    _, err = p.communicate(timeout=120)
    check("split --force over an earlier set: every file replaced, nothing hidden left beside them",
          p.returncode == 0 and present() == sorted(os.path.basename(x) for x in names(n_big)) and
          all(open(x, "rb").read(4) == b"GGUF" for x in names(n_big)),
          "exit %d: %s %s" % (p.returncode, err.strip(), present()))

    # the move into place of the third file fails (a test hook) after two
    # were moved: the earlier set is back, whole, under its names
    for k, name in enumerate(names(n_big)):
        with open(name, "w") as f:
            f.write("old %d" % k)
    r = run("convert", big, "-o", target, "--outtype", "q8_0", "--split-max-tensors", "8", "--force",
            env={"TENSORSCOPE_TEST_FAIL_COMMIT": "2"})
    kept = all(os.path.isfile(name) and open(name).read() == "old %d" % k for k, name in enumerate(names(n_big)))
    check("split --force, the third move fails: the earlier set is as it was, nothing left beside it",
          r.returncode == 1 and os.path.basename(names(n_big)[2]) in r.stderr and kept and
          present() == sorted(os.path.basename(x) for x in names(n_big)),
          "exit %d: %s %s" % (r.returncode, r.stderr.strip(), present()))
    for name in names(n_big):
        os.remove(name)

    # a file system without hard links or RENAME_NOREPLACE (FAT, exFAT on
    # an old kernel; a test hook, as such a mount needs privileges): one
    # file and a set, new and replaced, and a failed move undone
    nolinks = {"TENSORSCOPE_TEST_NO_HARD_LINKS": "1"}
    plain = os.path.join(sdir, "plain.gguf")
    set_names = sorted(os.path.basename(x) for x in names(n_big))
    for what, args, want in (("one file", ["-o", plain], ["plain.gguf"]),
                             ("one file, --force", ["-o", plain, "--force"], ["plain.gguf"]),
                             ("a set", ["-o", target, "--split-max-tensors", "8"], ["plain.gguf"] + set_names),
                             ("a set, --force", ["-o", target, "--split-max-tensors", "8", "--force"],
                              ["plain.gguf"] + set_names)):
        r = run("convert", big, "--outtype", "q8_0", *args, env=nolinks)
        check("no hard links: %s written, nothing left beside it" % what,
              r.returncode == 0 and present() == want, "exit %d: %s %s" % (r.returncode, r.stderr.strip(), present()))
    os.remove(plain)
    for k, name in enumerate(names(n_big)):
        with open(name, "w") as f:
            f.write("old %d" % k)
    r = run("convert", big, "-o", target, "--outtype", "q8_0", "--split-max-tensors", "8", "--force",
            env=dict(nolinks, TENSORSCOPE_TEST_FAIL_COMMIT="2"))
    kept = all(os.path.isfile(name) and open(name).read() == "old %d" % k for k, name in enumerate(names(n_big)))
    check("no hard links, the third move fails: the earlier set is as it was, nothing left beside it",
          r.returncode == 1 and kept and present() == sorted(os.path.basename(x) for x in names(n_big)),
          "exit %d: %s %s" % (r.returncode, r.stderr.strip(), present()))
    for name in names(n_big):
        os.remove(name)

    # two names of the set are one file (links to it): refused, as writing
    # each would replace the other
    shared = os.path.join(WORK, "shared.bin")
    with open(shared, "w") as f:
        f.write("mine")
    os.symlink(shared, names(n_big)[1])
    os.symlink(shared, names(n_big)[2])
    r = run("convert", big, "-o", target, "--outtype", "q8_0", "--split-max-tensors", "8", "--force")
    check("split --force: two files of the set that are one file are refused, the file untouched",
          r.returncode == 1 and "are the same file" in r.stderr and open(shared).read() == "mine",
          "exit %d: %s" % (r.returncode, r.stderr.strip()))
    os.remove(names(n_big)[1])
    os.remove(names(n_big)[2])
    os.remove(shared)


if __name__ == "__main__":
    sys.exit(main())
