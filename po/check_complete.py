#!/usr/bin/env python3
"""Fails when a translation misses a string of the sources: extracts every
translatable string (xgettext over POTFILES.in, with the keywords of meson's
glib preset) and compares each LANG.po with them (msgcmp). An untranslated,
fuzzy or absent message fails; obsolete ones in LANG.po do not.

usage: check_complete.py SOURCE_ROOT LANG..."""

import os
import subprocess
import sys
import tempfile

KEYWORDS = ['--keyword=_', '--keyword=N_', '--keyword=C_:1c,2', '--keyword=NC_:1c,2',
            '--keyword=g_dcgettext:2', '--keyword=g_dngettext:2,3',
            '--keyword=g_dpgettext2:2c,3']


def main():
    root, langs = sys.argv[1], sys.argv[2:]
    po = os.path.join(root, 'po')
    with tempfile.TemporaryDirectory() as tmp:
        pot = os.path.join(tmp, 'sources.pot')
        subprocess.run(['xgettext', '--from-code=UTF-8', '--directory=' + root,
                        '--files-from=' + os.path.join(po, 'POTFILES.in'),
                        '--output=' + pot] + KEYWORDS, check=True)
        failed = []
        for lang in langs:
            result = subprocess.run(['msgcmp', os.path.join(po, lang + '.po'), pot],
                                    capture_output=True, text=True)
            if result.returncode != 0:
                failed.append(lang)
                print(f'{lang}.po misses strings of the sources:\n{result.stderr}')
            else:
                print(f'{lang}.po: every string of the sources is translated')
    return 1 if failed else 0


if __name__ == '__main__':
    sys.exit(main())
