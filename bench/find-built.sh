# find-built.sh: sourced by the bench scripts.
#
# find_built VAR GIVEN RELPATH: sets VAR to GIVEN when it is not empty, else
# to the first executable RELPATH under the release build, then the default
# build (_build/release/RELPATH, _build/RELPATH); exits with status 2 and a
# message naming RELPATH when there is none.
find_built () {
  local var=$1 given=$2 rel=$3 root c found=
  root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
  if [ -n "$given" ]; then
    found=$given
  else
    for c in "$root/_build/release/$rel" "$root/_build/$rel"; do
      if [ -x "$c" ]; then found=$c; break; fi
    done
  fi
  if [ -n "$given" ] && [ ! -x "$given" ]; then
    echo "$(basename "$0"): $given is not an executable" >&2
    exit 2
  elif [ -z "$found" ]; then
    echo "$(basename "$0"): $rel not found; build it (meson compile -C _build/release) or pass its path" >&2
    exit 2
  fi
  printf -v "$var" '%s' "$found"
}
