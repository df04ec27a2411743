#!/usr/bin/env bash
# dist.sh BIN_DIR OUT_DIR
#
# Packs a release build of gallerygen (built with `swift build -c release --static-swift-stdlib
# --product gallerygen`) into OUT_DIR/gallerygen-VERSION-linux-ARCH.tar.gz plus a `.sha256`
# file in `sha256sum` format. Layout of the tarball:
#
#   gallerygen-VERSION-linux-ARCH/
#     bin/gallerygen                               the executable (stripped unless STRIP=0)
#     bin/gallerygen_Rendering.resources/Theme/... the default theme; must stay next to the
#                                                  executable (looked up beside the symlink-resolved
#                                                  executable path)
#     README.md, LICENSE*                          if present in PROJECT_DIR
#     docs/                                        the guides README.md links to, if present
#
# Environment:
#   PROJECT_DIR        where README.md / LICENSE* / docs are taken from (default: the current directory)
#   STRIP=0            keep the symbol table (default: strip it, ~30% smaller)
#   SOURCE_DATE_EPOCH  mtime written into the tarball (default 0) - the tarball is reproducible
set -Eeuo pipefail
trap 'echo "dist.sh: error: line $LINENO: \`$BASH_COMMAND\` exited with $?" >&2' ERR

die() { echo "dist.sh: error: $*" >&2; exit 1; }

[ $# -eq 2 ] || die "usage: dist.sh BIN_DIR OUT_DIR   (e.g. dist.sh .build/release dist)"
bin_dir=$1
out_dir=$2
project_dir=${PROJECT_DIR:-.}
exe=$bin_dir/gallerygen

[ -x "$exe" ] || die "$exe: no executable (run: swift build -c release --static-swift-stdlib --product gallerygen)"

# The Swift runtime must be linked in: a tarball needing /opt/swift/... would only run here.
if ! command -v readelf >/dev/null; then die "readelf (binutils) is needed"; fi
swift_libs=$(readelf -d "$exe" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p' |
    grep -E '^lib(swift|_?Foundation|dispatch|BlocksRuntime)' || true)
[ -z "$swift_libs" ] || die "$exe links the Swift runtime dynamically ($(tr "\n" " " <<<"$swift_libs")); build with --static-swift-stdlib"

version=$("$exe" --version) || die "$exe --version failed"
[[ $version =~ ^[0-9A-Za-z.+-]+$ ]] || die "unexpected output of gallerygen --version: '$version'"
case $(uname -m) in
    x86_64) arch=x86_64 ;;
    aarch64 | arm64) arch=aarch64 ;;
    *) arch=$(uname -m) ;;
esac
name=gallerygen-$version-linux-$arch

shopt -s nullglob
bundles=("$bin_dir"/*.resources)
shopt -u nullglob
[ ${#bundles[@]} -gt 0 ] || die "no *.resources bundle in $bin_dir (the default theme)"

stage=$(mktemp -d "${TMPDIR:-/tmp}/gallerygen-dist.XXXXXX")
trap 'rm -rf -- "$stage"' EXIT
root=$stage/$name
mkdir -p "$root/bin"

cp "$exe" "$root/bin/gallerygen"
if [ "${STRIP:-1}" != 0 ]; then strip "$root/bin/gallerygen"; fi
for bundle in "${bundles[@]}"; do cp -R "$bundle" "$root/bin/"; done
for doc in "$project_dir"/README* "$project_dir"/LICENSE* "$project_dir"/COPYING*; do
    if [ -f "$doc" ]; then cp "$doc" "$root/"; fi
done
if [ -d "$project_dir/docs" ]; then cp -R "$project_dir/docs" "$root/"; fi

# The packed copy must still run and find its theme.
"$root/bin/gallerygen" --version >/dev/null || die "the packed (stripped) executable does not run"

mkdir -p "$out_dir"
tarball=$out_dir/$name.tar.gz
# Reproducible: fixed order, times, owners and modes; gzip without name/time stamp.
tar --sort=name --mtime="@${SOURCE_DATE_EPOCH:-0}" --owner=0 --group=0 --numeric-owner \
    --mode='u+rwX,go+rX,go-w' --format=gnu -C "$stage" -cf - "$name" | gzip -9 -n >"$tarball.tmp"
mv "$tarball.tmp" "$tarball"
(cd "$out_dir" && sha256sum "$name.tar.gz" >"$name.tar.gz.sha256")

echo "$tarball"
echo "  $(du -k "$tarball" | cut -f1) KiB, sha256 $(cut -d' ' -f1 "$tarball.sha256")"
