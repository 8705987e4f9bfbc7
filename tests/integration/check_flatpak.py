#!/usr/bin/env python3
"""Validates flatpak/io.github.tensorscope.Tensorscope.json without the
runtime (Flathub cannot be reached from CI): JSON, app id, command, runtime
fields, minimal finish-args, and that the one module builds this meson project
from the local tree and installs into /app."""

import json
import os
import re
import shutil
import subprocess
import sys

APP_ID = 'io.github.tensorscope.Tensorscope'
FINISH_ARGS = ['--share=ipc', '--socket=wayland', '--socket=fallback-x11', '--device=dri']
failures = []


def check(cond, message):
    print(('ok   ' if cond else 'FAIL ') + message)
    if not cond:
        failures.append(message)


def main():
    root = os.path.realpath(sys.argv[1])
    path = os.path.join(root, 'flatpak', APP_ID + '.json')
    try:
        with open(path, encoding='utf-8') as f:
            manifest = json.load(f)
    except (OSError, ValueError) as e:
        print('FAIL %s: %s' % (path, e))
        return 1

    check(manifest.get('id') == APP_ID, 'id is %s' % APP_ID)
    check(manifest.get('runtime') == 'org.gnome.Platform', 'runtime is org.gnome.Platform')
    check(manifest.get('sdk') == 'org.gnome.Sdk', 'sdk is org.gnome.Sdk')
    version = str(manifest.get('runtime-version', ''))
    check(re.fullmatch(r'\d+', version) is not None and int(version) >= 47,
          'runtime-version %r is a numbered stable GNOME release (not master)' % version)
    check(manifest.get('command') == 'tensorscope', 'command is tensorscope')
    check(manifest.get('finish-args') == FINISH_ARGS,
          'finish-args are exactly %s (files come through the portals)' % ' '.join(FINISH_ARGS))

    # the command is the executable the meson project installs
    with open(os.path.join(root, 'src', 'tensorscope', 'meson.build'), encoding='utf-8') as f:
        app_meson = f.read()
    check(re.search(r"executable\(\s*'tensorscope'", app_meson) is not None and
          'install: true' in app_meson, 'src/tensorscope builds and installs `tensorscope`')

    # the app id is the one of meson, the desktop file and the metainfo
    with open(os.path.join(root, 'meson.build'), encoding='utf-8') as f:
        top = f.read()
    check("app_id_base = '%s'" % APP_ID in top, 'meson.build uses the same app id')
    check(re.search(r"project\(\s*'tensorscope'", top) is not None, 'the project is tensorscope')

    modules = manifest.get('modules', [])
    check(len(modules) >= 1 and isinstance(modules[-1], dict), 'the last module is ours')
    if modules and isinstance(modules[-1], dict):
        module = modules[-1]
        check(module.get('name') == 'tensorscope', 'module is named tensorscope')
        sources = module.get('sources', [])
        dirs = [s for s in sources if s.get('type') == 'dir']
        check(len(dirs) == 1 and os.path.realpath(os.path.join(root, 'flatpak', dirs[0].get('path', ''))) == root,
              'the module is built from the local tree (type dir, path "..")')
        system = module.get('buildsystem')
        if system == 'meson':
            check('-Dtests=false' in module.get('config-opts', []),
                  'buildsystem meson with -Dtests=false (the SDK has no numpy for the fixtures)')
        else:
            commands = module.get('build-commands', [])
            check(system == 'simple' and any(c.startswith('meson setup') and '--prefix=/app' in c
                                               for c in commands),
                  'build-commands run meson setup --prefix=/app')
            check(any(c.startswith('meson install') for c in commands), 'build-commands run meson install')
            for c in commands:
                for script in re.findall(r'python3 (\S+\.py)', c):
                    check(os.path.isfile(os.path.join(root, script)), '%s exists' % script)
        for s in sources:
            check(s.get('type') in ('dir', 'archive', 'git', 'file', 'patch'),
                  'source type %s' % s.get('type'))

    # flatpak-builder parses it, where installed
    builder = shutil.which('flatpak-builder')
    if builder:
        p = subprocess.run([builder, '--show-manifest', path], capture_output=True, text=True)
        check(p.returncode == 0, 'flatpak-builder --show-manifest parses it: %s' % p.stderr.strip())

    print('flatpak manifest: %d failed' % len(failures))
    return 1 if failures else 0


if __name__ == '__main__':
    sys.exit(main())
