#!/usr/bin/env python3
"""README.md's command-line section and the commands' --help against what
the tool does: every command is in the README's synopsis with every option
its --help lists (but where the synopsis line ends in "...", as sample's
does), the README's example prints what the README shows, and the --help
texts say the same thing the same way (the exit statuses, --jobs).

usage: check_cli_docs.py CLI README WORKDIR
"""
import os
import re
import shutil
import subprocess
import sys

from tscheck import check, summary


def run(cli, *args):
    return subprocess.run([cli] + list(args), capture_output=True, text=True, timeout=120)


def command_line_section(readme):
    text = open(readme, encoding="utf-8").read()
    start = text.index("\n## Command line\n")
    end = text.index("\n## ", start + 1)
    return text[start:end]


def synopsis(section):
    """The first code block of the section: {command: its lines}."""
    block = re.search(r"```sh\n(.*?)```", section, re.S).group(1)
    lines, current = {}, None
    for line in block.splitlines():
        m = re.match(r"tensorscope-cli (\w+)", line)
        if m:
            current = m.group(1)
        if current:
            lines.setdefault(current, []).append(line.split("#")[0])
    return {cmd: "\n".join(ls) for cmd, ls in lines.items()}


def options(help_text):
    """The options of a --help: for each, its spellings ("-o", "--output")."""
    opts = []
    for line in help_text.split("Application Options:")[1].splitlines():
        m = re.match(r"\s+(?:(-\w), )?(--[\w-]+)", line)
        if m:
            opts.append([o for o in m.groups() if o])
    return opts


def mentions(text, spellings):
    return any(re.search(re.escape(o) + r"(?![\w-])", text) for o in spellings)


def main():
    if len(sys.argv) != 4:
        print(__doc__.strip().splitlines()[-1], file=sys.stderr)
        return 2
    cli, readme, work = sys.argv[1:]
    section = command_line_section(readme)
    syn = synopsis(section)

    commands = re.findall(r"^  (\w+) ", run(cli, "--help").stdout, re.M)
    check("tensorscope-cli --help lists the commands", len(commands) >= 5, commands)
    for cmd in commands:
        check(f"README's synopsis has {cmd}", cmd in syn, sorted(syn))
        if cmd not in syn:
            continue
        opts = options(run(cli, cmd, "--help").stdout)
        missing = [o[-1] for o in opts if not mentions(syn[cmd], o)]
        if syn[cmd].rstrip().endswith("..."):
            continue
        check(f"README's synopsis of {cmd} has all its options", not missing,
              "missing: %s" % missing)

    # the example, run as it is written (in WORKDIR instead of /tmp)
    example = re.search(r"Example, on the built-in sample:\n\n```sh\n(.*?)```", section, re.S).group(1)
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    printed = []
    for line in example.splitlines():
        if not line.startswith("$ "):
            continue
        args = line[2:].replace("/tmp/", work + "/").split()
        assert args[0] == "tensorscope-cli", args
        r = run(cli, *args[1:])
        check("README example: %s" % line[2:], r.returncode == 0, r.stderr.strip()[-300:])
        # g_format_size() puts a no-break space before the unit
        printed += [re.sub(r" in [0-9.]+ s$", "", l.replace(work + "/", "/tmp/").replace("\xa0", " "))
                    for l in r.stderr.splitlines() if l.startswith("Wrote ")]
    shown = [re.sub(r" in [0-9.]+ s$", "", l) for l in example.splitlines() if l.startswith("Wrote ")]
    check("README example: what it shows convert printing is what it prints",
          shown and shown == printed, "README: %s; printed: %s" % (shown, printed))
    shutil.rmtree(work, ignore_errors=True)

    # the --help texts
    audit_help = run(cli, "audit", "--help").stdout
    check("audit --help: exit 1 is any failed check (metadata too), not only values",
          re.search(r"1 if\s+a\s+check\s+failed", audit_help) is not None
          and "1 if not" not in audit_help, audit_help)
    jobs = {}
    for cmd in ("convert", "audit"):
        m = re.search(r"--jobs=N\s+(.*)", run(cli, cmd, "--help").stdout)
        jobs[cmd] = m.group(1) if m else None
    # the same words for the range; each says its own default (convert's
    # workers also wait for the disk: three per processor)
    common = "Worker threads, 1 to 256 (default, or 0: "
    check("convert and audit describe --jobs in the same words, each with its default",
          jobs["convert"] == common + "three per processor, at most 24)"
          and jobs["audit"] == common + "one per processor)", jobs)
    return summary()


if __name__ == "__main__":
    sys.exit(main())
