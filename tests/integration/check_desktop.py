#!/usr/bin/env python3
"""Desktop integration as a new user meets it.

Installs the build into a temporary root (meson install --destdir), updates the
MIME, desktop and schema caches there, then with XDG_DATA_DIRS pointing at it
and a fresh HOME:
- `gio mime` resolves application/x-gguf, application/x-safetensors and
  application/x-safetensors-index to our desktop file;
- GIO types a .gguf by its glob, and a GGUF with an unusual extension by its
  "GGUF" magic; a model.safetensors.index.json is the index, not plain JSON;
- `gio open FILE.gguf` (what a double-click does) starts the installed app and
  a window titled with the file name appears; the magic-typed file and
  `gio launch DESKTOP-FILE FILE.safetensors` (Exec=… %F) open windows in the
  same instance.
Runs under xvfb-run and dbus-run-session (see meson.build). The app is quit
through its D-Bus action, and killed by pid if it does not go."""

import argparse
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time

TIMEOUT = 60
failures = []


def check(cond, message):
    print(('ok   ' if cond else 'FAIL ') + message, flush=True)
    if not cond:
        failures.append(message)


def run(cmd, env=None, timeout=TIMEOUT, check_rc=True):
    p = subprocess.run(cmd, env=env, timeout=timeout, stdin=subprocess.DEVNULL,
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if check_rc and p.returncode != 0:
        raise SystemExit('%s failed (%d):\n%s%s' % (' '.join(cmd), p.returncode, p.stdout, p.stderr))
    return p


def build_options(build_root):
    with open(os.path.join(build_root, 'meson-info', 'intro-buildoptions.json')) as f:
        return {o['name']: o['value'] for o in json.load(f)}


def window_names():
    p = run(['xwininfo', '-root', '-tree'], check_rc=False)
    return p.stdout


def wait_for(predicate, timeout=TIMEOUT, step=0.25):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(step)
    return False


def app_pid(app_id, env):
    p = run(['gdbus', 'call', '--session', '--dest', 'org.freedesktop.DBus',
             '--object-path', '/org/freedesktop/DBus',
             '--method', 'org.freedesktop.DBus.GetConnectionUnixProcessID', app_id],
            env=env, check_rc=False)
    if p.returncode != 0:
        return None
    # "(uint32 1234,)"
    digits = ''.join(c for c in p.stdout.split()[1] if c.isdigit()) if len(p.stdout.split()) > 1 else ''
    return int(digits) if digits else None


def quit_app(app_id, env):
    pid = app_pid(app_id, env)
    object_path = '/' + app_id.replace('.', '/')
    run(['gdbus', 'call', '--session', '--dest', app_id, '--object-path', object_path,
         '--method', 'org.gtk.Actions.Activate', 'quit', '[]', '{}'],
        env=env, check_rc=False, timeout=15)
    if pid is None:
        return
    deadline = time.monotonic() + 15
    while time.monotonic() < deadline:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return
        time.sleep(0.2)
    print('the app did not quit; killing pid %d' % pid)
    os.kill(pid, signal.SIGKILL)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--build-root', required=True)
    ap.add_argument('--app-id', required=True)
    ap.add_argument('--gguf', required=True, help='a valid GGUF fixture')
    ap.add_argument('--safetensors', required=True, help='a valid Safetensors fixture')
    ap.add_argument('--meson', default='meson')
    ap.add_argument('--screenshot-dir')
    args = ap.parse_args()

    for tool in ('gio', 'gdbus', 'update-mime-database', 'xwininfo'):
        if shutil.which(tool) is None:
            print('%s is missing; skipping' % tool)
            return 77
    if not os.environ.get('DISPLAY') or not os.environ.get('DBUS_SESSION_BUS_ADDRESS'):
        print('needs a display and a session bus (xvfb-run, dbus-run-session); skipping')
        return 77

    opts = build_options(args.build_root)
    tmp = tempfile.mkdtemp(prefix='ts-desktop-')
    try:
        destdir = os.path.join(tmp, 'root')
        run([args.meson, 'install', '-C', args.build_root, '--destdir', destdir,
             '--no-rebuild', '--quiet'], timeout=300)
        prefix = destdir + opts['prefix']
        share = os.path.join(prefix, opts['datadir'])
        bindir = os.path.join(prefix, opts['bindir'])
        desktop_id = args.app_id + '.desktop'
        desktop_path = os.path.join(share, 'applications', desktop_id)

        # what gnome.post_install does on a real install (it skips DESTDIR)
        run(['update-mime-database', os.path.join(share, 'mime')])
        if shutil.which('update-desktop-database'):
            run(['update-desktop-database', os.path.join(share, 'applications')])
        run(['glib-compile-schemas', os.path.join(share, 'glib-2.0', 'schemas')])
        for rel in ('applications/' + desktop_id,
                    'metainfo/%s.metainfo.xml' % args.app_id,
                    'mime/packages/%s.xml' % args.app_id,
                    'icons/hicolor/scalable/apps/%s.svg' % args.app_id,
                    'icons/hicolor/symbolic/apps/%s-symbolic.svg' % args.app_id,
                    'locale/fr/LC_MESSAGES/tensorscope.mo'):
            check(os.path.isfile(os.path.join(share, rel)), 'installed share/' + rel)

        # a new user: empty home, no mimeapps.list, only our prefix and the system
        home = os.path.join(tmp, 'home')
        for d in ('.config', '.local/share', '.cache', 'xdg-config'):
            os.makedirs(os.path.join(home, d), exist_ok=True)
        env = dict(os.environ)
        env.update({
            'HOME': home,
            'XDG_CONFIG_HOME': os.path.join(home, '.config'),
            'XDG_DATA_HOME': os.path.join(home, '.local/share'),
            'XDG_CACHE_HOME': os.path.join(home, '.cache'),
            'XDG_CONFIG_DIRS': os.path.join(home, 'xdg-config'),
            'XDG_DATA_DIRS': share + ':/usr/share',
            'PATH': bindir + ':' + os.environ.get('PATH', '/usr/bin:/bin'),
            'GSETTINGS_BACKEND': 'memory',
            'GSETTINGS_SCHEMA_DIR': os.path.join(share, 'glib-2.0', 'schemas'),
            'GSK_RENDERER': 'cairo',
            'GDK_BACKEND': 'x11',
            'NO_AT_BRIDGE': '1',
            'GTK_A11Y': 'none',
            'GIO_USE_VFS': 'local',
            'LC_ALL': 'C.UTF-8',
        })
        env.pop('GIO_LAUNCHED_DESKTOP_FILE', None)

        # the MIME associations
        for mime in ('application/x-gguf', 'application/x-safetensors',
                     'application/x-safetensors-index'):
            out = run(['gio', 'mime', mime], env=env).stdout
            first = out.splitlines()[0] if out else ''
            check(desktop_id in first, '`gio mime %s` defaults to %s: %r' % (mime, desktop_id, first))

        files = os.path.join(tmp, 'files')
        os.makedirs(files)
        gguf = os.path.join(files, 'tiny-model.gguf')
        odd = os.path.join(files, 'downloaded-weights.q8')  # typed by magic alone
        st = os.path.join(files, 'tiny-model.safetensors')
        shutil.copy(args.gguf, gguf)
        shutil.copy(args.gguf, odd)
        shutil.copy(args.safetensors, st)
        # a sharded checkpoint's index: JSON by content, ours by its name
        index = os.path.join(files, 'model.safetensors.index.json')
        with open(index, 'w') as f:
            f.write('{"metadata": {}, "weight_map": {}}\n')
        for path, mime in ((gguf, 'application/x-gguf'), (odd, 'application/x-gguf'),
                           (st, 'application/x-safetensors'),
                           (index, 'application/x-safetensors-index')):
            out = run(['gio', 'info', '-a', 'standard::content-type', path], env=env).stdout
            check('standard::content-type: ' + mime in out,
                  '%s is typed %s (%s)' % (os.path.basename(path), mime, out.strip().splitlines()[-1]))

        # double-click: the app starts from the installed desktop file
        log_path = os.path.join(tmp, 'app.log')
        with open(log_path, 'w') as log:
            subprocess.run(['gio', 'open', gguf], env=env, stdin=subprocess.DEVNULL,
                           stdout=log, stderr=log, timeout=TIMEOUT)
            try:
                check(wait_for(lambda: 'tiny-model.gguf' in window_names()),
                      '`gio open tiny-model.gguf` opens a window on it')
                check(app_pid(args.app_id, env) is not None,
                      'the app owns %s on the session bus' % args.app_id)
                subprocess.run(['gio', 'open', odd], env=env, stdin=subprocess.DEVNULL,
                               stdout=log, stderr=log, timeout=TIMEOUT)
                check(wait_for(lambda: 'downloaded-weights.q8' in window_names()),
                      '`gio open downloaded-weights.q8` (magic) opens a window on it')
                subprocess.run(['gio', 'launch', desktop_path, st], env=env,
                               stdin=subprocess.DEVNULL, stdout=log, stderr=log, timeout=TIMEOUT)
                check(wait_for(lambda: 'tiny-model.safetensors' in window_names()),
                      '`gio launch %s tiny-model.safetensors` opens a window on it' % desktop_id)
                if args.screenshot_dir and shutil.which('import'):
                    os.makedirs(args.screenshot_dir, exist_ok=True)
                    time.sleep(1)
                    run(['import', '-window', 'root',
                         os.path.join(args.screenshot_dir, 'desktop-launch.png')],
                        env=env, check_rc=False)
            finally:
                quit_app(args.app_id, env)

        with open(log_path, errors='replace') as f:
            log_text = f.read()
        check('CRITICAL' not in log_text, 'the app logged no critical: %s' % log_text[-2000:])
    finally:
        shutil.rmtree(tmp, ignore_errors=True)

    print('desktop integration: %d failed' % len(failures))
    return 1 if failures else 0


if __name__ == '__main__':
    sys.exit(main())
