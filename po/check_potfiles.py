#!/usr/bin/env python3
"""Fails when a source file with translatable strings is missing from
po/POTFILES.in, or when POTFILES.in names a file that does not exist.

Translatable: C with _( N_( C_( NC_( ngettext( g_dngettext( g_dgettext(
g_dpgettext2(; GtkBuilder .ui with translatable="yes"; and the data files
that i18n.merge_file translates (desktop, metainfo, MIME XML, schema)."""

import os
import re
import sys

C_MARKS = re.compile(r'(?<![A-Za-z0-9_])(?:_|N_|C_|NC_|ngettext|g_dngettext|g_dgettext|'
                     r'g_dpgettext2|g_dcgettext)\s*\(')
UI_MARK = re.compile(r'translatable\s*=\s*"(?:yes|true)"')
DATA_SUFFIXES = ('.desktop.in.in', '.desktop.in', '.metainfo.xml.in.in',
                 '.metainfo.xml.in', '.gschema.xml')
DATA_FILES = ('data/tensorscope-mime.xml',)
SCAN_DIRS = ('src', 'data')


def translatable(root, rel):
    path = os.path.join(root, rel)
    if rel.endswith(DATA_SUFFIXES) or rel in DATA_FILES:
        return True
    if rel.endswith(('.c', '.h')):
        with open(path, encoding='utf-8', errors='replace') as f:
            text = f.read()
        # comments may mention _( in prose; strip them first
        text = re.sub(r'/\*.*?\*/', '', text, flags=re.S)
        text = re.sub(r'//[^\n]*', '', text)
        # "#define _(s)" style definitions are not strings
        text = re.sub(r'#\s*define[^\n]*', '', text)
        return bool(C_MARKS.search(text))
    if rel.endswith('.ui'):
        with open(path, encoding='utf-8', errors='replace') as f:
            return bool(UI_MARK.search(f.read()))
    return False


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), '..')
    with open(os.path.join(root, 'po', 'POTFILES.in'), encoding='utf-8') as f:
        listed = [l.strip() for l in f if l.strip() and not l.startswith('#')]

    failures = []
    for rel in listed:
        if not os.path.isfile(os.path.join(root, rel)):
            failures.append('POTFILES.in lists %s, which does not exist' % rel)
    if len(set(listed)) != len(listed):
        failures.append('POTFILES.in lists a file twice')

    found = []
    for top in SCAN_DIRS:
        for dirpath, dirnames, filenames in os.walk(os.path.join(root, top)):
            dirnames.sort()
            for name in sorted(filenames):
                rel = os.path.relpath(os.path.join(dirpath, name), root)
                if translatable(root, rel):
                    found.append(rel)
    for rel in found:
        if rel not in listed:
            failures.append('%s has translatable strings but is not in po/POTFILES.in' % rel)

    for f in failures:
        print('FAIL:', f)
    print('potfiles: %d files with translatable strings, %d failed' % (len(found), len(failures)))
    return 1 if failures else 0


if __name__ == '__main__':
    sys.exit(main())
