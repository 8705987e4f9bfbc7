#!/usr/bin/env python3
"""Checks the built desktop file, metainfo and MIME XML against each other and
against the source tree: one app id everywhere, icons at the paths the desktop
file and metainfo name, MIME types listed the same in all three, screenshots
that exist in docs/screenshots at the size the metainfo states."""

import argparse
import configparser
import os
import struct
import sys
import xml.etree.ElementTree as ET

MIME_NS = '{http://www.freedesktop.org/standards/shared-mime-info}'
HOMEPAGE = 'https://github.com/tensorscope/tensorscope'
RAW_PREFIX = 'https://raw.githubusercontent.com/tensorscope/tensorscope/main/'
BASE_ID = 'io.github.tensorscope.Tensorscope'

failures = []


def check(cond, message):
    if not cond:
        failures.append(message)


def png_size(path):
    with open(path, 'rb') as f:
        head = f.read(24)
    if head[:8] != b'\x89PNG\r\n\x1a\n':
        return None
    return struct.unpack('>II', head[16:24])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--source-root', required=True)
    ap.add_argument('--app-id', required=True)
    ap.add_argument('--desktop', required=True)
    ap.add_argument('--metainfo', required=True)
    ap.add_argument('--mime', required=True)
    args = ap.parse_args()
    src = args.source_root
    app_id = args.app_id

    # Desktop file
    desktop = configparser.RawConfigParser(strict=False, interpolation=None)
    desktop.optionxform = str
    desktop.read(args.desktop, encoding='utf-8')
    entry = desktop['Desktop Entry']
    check(os.path.basename(args.desktop) == app_id + '.desktop',
          'desktop file is not named after the app id')
    check(entry.get('Icon') == app_id, 'Icon= is %r, not the app id' % entry.get('Icon'))
    check(entry.get('Exec', '').split()[0] == 'tensorscope', 'Exec= does not run tensorscope')
    check('%F' in entry.get('Exec', '').split(), 'Exec= does not take %F (several files)')
    check('Name[fr]' in entry, 'the desktop file has no French name (po/fr.po not merged?)')
    desktop_types = [t for t in entry.get('MimeType', '').split(';') if t]

    # Icons named by the desktop file and metainfo exist in the tree
    icon_dir = os.path.join(src, 'data', 'icons', 'hicolor')
    for rel in ('scalable/apps/%s.svg' % BASE_ID, 'symbolic/apps/%s-symbolic.svg' % BASE_ID):
        path = os.path.join(icon_dir, rel)
        check(os.path.isfile(path), 'missing icon %s' % rel)
        if os.path.isfile(path):
            try:
                root = ET.parse(path).getroot()
                check(root.tag.endswith('svg'), '%s is not an SVG' % rel)
            except ET.ParseError as e:
                check(False, '%s: %s' % (rel, e))

    # Metainfo
    meta = ET.parse(args.metainfo).getroot()
    check(meta.findtext('id') == app_id, 'metainfo <id> is not the app id')
    launchable = meta.find('launchable')
    check(launchable is not None and launchable.text == app_id + '.desktop',
          'metainfo <launchable> does not name the desktop file')
    check(meta.find('content_rating') is not None, 'no content rating')
    check(meta.find('releases/release') is not None, 'no release')
    check(meta.findtext("url[@type='homepage']") == HOMEPAGE, 'homepage is not %s' % HOMEPAGE)
    provided = [m.text for m in meta.findall('provides/mediatype')]
    binaries = [b.text for b in meta.findall('provides/binary')]
    check('tensorscope' in binaries, 'metainfo does not provide the tensorscope binary')
    for b in binaries:
        check(os.path.isdir(os.path.join(src, 'src', b)), 'provided binary %s is not built' % b)
    check(any(d.get('{http://www.w3.org/XML/1998/namespace}lang') == 'fr'
              for d in meta.findall('summary')), 'the metainfo has no French summary')

    shots = meta.findall('screenshots/screenshot/image')
    check(len(shots) > 0, 'no screenshots')
    for image in shots:
        url = image.text.strip()
        check(url.startswith(RAW_PREFIX), 'screenshot %s is not under %s' % (url, RAW_PREFIX))
        path = os.path.join(src, url[len(RAW_PREFIX):])
        if not os.path.isfile(path):
            check(False, 'screenshot %s is not in the tree' % url)
            continue
        size = png_size(path)
        check(size == (int(image.get('width')), int(image.get('height'))),
              '%s is %s, the metainfo says %sx%s' % (path, size, image.get('width'), image.get('height')))

    # MIME XML
    mime = ET.parse(args.mime).getroot()
    types = {t.get('type'): t for t in mime.findall(MIME_NS + 'mime-type')}
    check(sorted(types) == sorted(desktop_types),
          'MIME XML %s vs desktop MimeType= %s' % (sorted(types), desktop_types))
    check(sorted(provided) == sorted(desktop_types),
          'metainfo mediatypes %s vs desktop MimeType= %s' % (provided, desktop_types))
    gguf = types.get('application/x-gguf')
    check(gguf is not None, 'no application/x-gguf')
    if gguf is not None:
        globs = [g.get('pattern') for g in gguf.findall(MIME_NS + 'glob')]
        check(globs == ['*.gguf'], 'GGUF globs are %s' % globs)
        matches = gguf.findall(MIME_NS + 'magic/' + MIME_NS + 'match')
        check([(m.get('type'), m.get('value'), m.get('offset')) for m in matches] ==
              [('string', 'GGUF', '0')], 'GGUF magic is not "GGUF" at offset 0')
    st = types.get('application/x-safetensors')
    check(st is not None and [g.get('pattern') for g in st.findall(MIME_NS + 'glob')] ==
          ['*.safetensors'], 'no application/x-safetensors with *.safetensors')
    idx = types.get('application/x-safetensors-index')
    check(idx is not None and [g.get('pattern') for g in idx.findall(MIME_NS + 'glob')] ==
          ['*.safetensors.index.json'],
          'no application/x-safetensors-index with *.safetensors.index.json')
    check(idx is not None and [c.get('type') for c in idx.findall(MIME_NS + 'sub-class-of')] ==
          ['application/json'], 'the checkpoint index is not a sub-class of application/json')

    # GSettings schema and GResource prefix follow the app id
    schema = ET.parse(os.path.join(src, 'data', BASE_ID + '.gschema.xml')).getroot()
    for s in schema.findall('schema'):
        check(s.get('id') == BASE_ID, 'schema id %s' % s.get('id'))
        check(s.get('path') == '/' + BASE_ID.replace('.', '/') + '/', 'schema path %s' % s.get('path'))

    for f in failures:
        print('FAIL:', f)
    print('check-data: %d failed' % len(failures))
    return 1 if failures else 0


if __name__ == '__main__':
    sys.exit(main())
