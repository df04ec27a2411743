#!/usr/bin/env bash
# dist-test.sh TARBALL
#
# Checks a `make dist` tarball on a clean Debian 12 (bookworm) root, as root:
#   1. a minbase debootstrap root (cached as a tarball; see CACHE_DIR);
#   2. the unpacked binary must FAIL there, naming a missing shared library (proves the package
#      list below is needed);
#   3. the runtime packages are installed (--no-install-recommends; the resulting root is cached
#      too, keyed by the package list);
#   4. the tarball is unpacked under /opt, bin/gallerygen is symlinked from /usr/local/bin, and the
#      sample site is built with it: exit 0, public/index.html and the thumbnails must exist;
#   5. with GITLAB_JOB (the `pages` job of examples/ci/gitlab-ci.yml as a shell script, made by
#      Tests/CI/ci_test.py --gitlab-job), that job runs in the same root as GitLab would run it in
#      debian:bookworm-slim, with the tarball served from 127.0.0.1: it installs its packages,
#      downloads and checks the tarball, and builds the sample site into /project/public.
#
# Environment:
#   SITE_DIR          the sample site to build (default: Site); its public/ and cache are not copied
#   RUNTIME_PACKAGES  Debian packages the binary needs (default: see below)
#   MIRROR            Debian mirror (default: the URIs: of the host's bookworm apt source)
#   CACHE_DIR         where the roots are cached (default: /var/cache/gallerygen-dist-test)
#   CACHE_DAYS        rebuild a cached root older than this (default: 7); NO_CACHE=1 ignores the cache
#   KEEP_ROOT=1       keep the work directory (it is printed) for inspection
#   GITLAB_JOB        a shell script of the GitLab example's job, run as step 5 (optional)
set -Eeuo pipefail
trap 'echo "dist-test: FAIL: line $LINENO: \`$BASH_COMMAND\` exited with $?" >&2' ERR

SUITE=bookworm
# The binary's NEEDED libraries (readelf -d) mapped with dpkg -S: libvips.so.42, libcmark-gfm*.so
# -> these three; libglib/gobject/gio -> libglib2.0-0 and libsqlite3.so.0 (the build store) ->
# libsqlite3-0 (dependencies of libvips42, the latter through libopenslide0); libc, libm,
# libstdc++, libgcc_s, libz -> libc6, libstdc++6, libgcc-s1, zlib1g (already in minbase).
# Not needed for the local sample site, but for https feeds: ca-certificates (NIOSSL reads
# /etc/ssl/certs/ca-certificates.crt; without it every https load fails with BoringSSLError).
RUNTIME_PACKAGES=${RUNTIME_PACKAGES:-libvips42 libcmark-gfm0.29.0.gfm.6 libcmark-gfm-extensions0.29.0.gfm.6}
read -ra packages <<<"$RUNTIME_PACKAGES"
SITE_DIR=${SITE_DIR:-Site}
CACHE_DIR=${CACHE_DIR:-/var/cache/gallerygen-dist-test}
CACHE_DAYS=${CACHE_DAYS:-7}
CHROOT_ENV=(env -i PATH=/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin HOME=/root LANG=C.UTF-8)

die() { echo "dist-test: FAIL: $*" >&2; exit 1; }
step() { echo "dist-test: $* ($(( $(date +%s) - t0 ))s)"; }
t0=$(date +%s)

[ $# -eq 1 ] || die "usage: dist-test.sh gallerygen-VERSION-linux-ARCH.tar.gz"
tarball=$(realpath -- "$1") || die "$1: no such file"
[ -f "$tarball" ] || die "$tarball: no such file"
[ "$(id -u)" = 0 ] || die "must run as root (debootstrap, chroot, mount)"
for tool in debootstrap chroot mount umount mountpoint findmnt flock sha256sum; do
    command -v "$tool" >/dev/null || die "$tool is not installed (apt-get install -y debootstrap)"
done
[ -f "$SITE_DIR/gallery.yml" ] || die "$SITE_DIR: not a site (no gallery.yml); set SITE_DIR"
if [ -f "$tarball.sha256" ]; then
    (cd "$(dirname "$tarball")" && sha256sum --quiet -c "$(basename "$tarball").sha256") ||
        die "$tarball does not match $tarball.sha256"
fi
name=$(basename "$tarball" .tar.gz)
tar -tzf "$tarball" "$name/bin/gallerygen" >/dev/null 2>&1 || die "$tarball has no $name/bin/gallerygen"

# The mirror the host itself uses for bookworm (deb822 .sources or one-line sources.list).
host_mirror() {
    local f
    for f in /etc/apt/sources.list.d/*.sources; do
        [ -f "$f" ] || continue
        awk -v suite="$SUITE" '
            /^[[:space:]]*$/ { if (ok && uri != "" && !done) { print uri; done = 1 } ok = 0; uri = ""; next }
            tolower($1) == "uris:" { uri = $2 }
            tolower($1) == "suites:" { for (i = 2; i <= NF; i++) if ($i == suite) ok = 1 }
            END { if (ok && uri != "" && !done) print uri }' "$f"
    done
    for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
        [ -f "$f" ] || continue
        awk -v suite="$SUITE" '$1 == "deb" { for (i = 3; i <= NF; i++) if ($i == suite) { print ($2 ~ /^\[/ ? $3 : $2); break } }' "$f"
    done
}
MIRROR=${MIRROR:-$(host_mirror | head -n1 || true)}
MIRROR=${MIRROR:-http://deb.debian.org/debian}
MIRROR=${MIRROR%/}
case $MIRROR in
    */debian) SECURITY_MIRROR=${MIRROR%/debian}/debian-security ;;
    *) SECURITY_MIRROR=http://deb.debian.org/debian-security ;;
esac

work=$(mktemp -d "${TMPDIR:-/tmp}/gallerygen-dist-test.XXXXXX")
root=$work/root
mounts=()

# Unmounts what was mounted (lazily if busy), and deletes the work directory only when nothing is
# mounted under it any more (never rm -rf through a mount).
unmount_all() {
    local i
    for ((i = ${#mounts[@]} - 1; i >= 0; i--)); do
        umount "${mounts[i]}" 2>/dev/null || umount -l "${mounts[i]}" 2>/dev/null ||
            echo "dist-test: warning: cannot unmount ${mounts[i]}" >&2
    done
    mounts=()
}
server_pid=""
cleanup() {
    local status=$? target
    [ -z "$server_pid" ] || kill "$server_pid" 2>/dev/null || true
    unmount_all
    # Whatever else is mounted under the work directory (e.g. left by a failed debootstrap).
    findmnt -rn -o TARGET | grep -F "$work/" | sort -r | while read -r target; do
        umount "$target" 2>/dev/null || umount -l "$target" 2>/dev/null || true
    done || true
    if findmnt -rn -o TARGET | grep -q -F "$work/"; then
        echo "dist-test: warning: mounts left under $work; not deleting it:" >&2
        findmnt -rn -o TARGET | grep -F "$work/" >&2
    elif [ "${KEEP_ROOT:-0}" = 1 ]; then
        echo "dist-test: kept $work"
    else
        rm -rf --one-file-system -- "$work"
    fi
    [ $status = 0 ] && echo "dist-test: PASS ($(( $(date +%s) - t0 ))s)"
    exit $status
}
trap cleanup EXIT
trap 'exit 130' INT TERM HUP

# /proc is the one mount the binary needs. Without it the statically linked Swift runtime sees an
# EMPTY CommandLine.arguments (`gallerygen build /site` runs as plain `gallerygen`: "no gallery.yml
# in /"), and Bundle.main (hence the theme lookup) traps with SIGILL. /dev (debootstrap's static
# nodes), /sys and /tmp (a directory in the root) need nothing. A fresh proc mount, never a bind
# of the host's /dev: the work directory is deleted afterwards.
mount_proc() {
    mountpoint -q "$root/proc" && return
    mount -t proc proc "$root/proc"
    mounts+=("$root/proc")
}

# Cache: one tarball per key; written to a temporary file and renamed, under a lock.
mkdir -p "$CACHE_DIR"
exec 9>"$CACHE_DIR/.lock"
flock 9
key() { printf '%s\n' "$@" | sha256sum | cut -c1-16; }
cached() { # FILE: usable?
    [ "${NO_CACHE:-0}" != 1 ] && [ -s "$1" ] && [ -z "$(find "$1" -mtime +"$CACHE_DAYS")" ]
}
if command -v zstd >/dev/null; then zip=(zstd -q -T0 -3); unzip=(zstd -q -d -c); ext=tar.zst
else zip=(gzip -1); unzip=(gzip -d -c); ext=tar.gz; fi
save_root() { # FILE
    tar -C "$root" --numeric-owner -cf - . | "${zip[@]}" >"$1.tmp" && mv "$1.tmp" "$1"
}
load_root() { # FILE
    unmount_all
    rm -rf --one-file-system -- "$root" && mkdir "$root"
    "${unzip[@]}" "$1" | tar -C "$root" --numeric-owner -xf - ||
        { rm -f -- "$1"; die "cached root $1 is unreadable; deleted it, run again"; }
}

# Drop cached roots past their age (other package lists, other mirrors, old snapshots).
find "$CACHE_DIR" -maxdepth 1 -name "$SUITE-*.tar.*" -mtime +"$CACHE_DAYS" -delete
base_key=$(key "$SUITE" minbase "$MIRROR" "$(debootstrap --version)")
base_cache=$CACHE_DIR/$SUITE-minbase-$base_key.$ext
rt_cache=$CACHE_DIR/$SUITE-runtime-$(key "$base_key" "$SECURITY_MIRROR" "$(printf '%s\n' "${packages[@]}" | sort -u)").$ext

# 1. The clean root.
if cached "$base_cache"; then
    load_root "$base_cache"
    step "base root from $base_cache"
else
    step "debootstrap --variant=minbase $SUITE from $MIRROR (cold; about a minute)"
    debootstrap --variant=minbase "$SUITE" "$root" "$MIRROR" >"$work/debootstrap.log" 2>&1 ||
        { tail -n 20 "$work/debootstrap.log" >&2; die "debootstrap failed (log above)"; }
    # The same mirror inside, plus updates and security, so versions match a real bookworm host.
    cat >"$root/etc/apt/sources.list" <<EOF
deb $MIRROR $SUITE main
deb $MIRROR $SUITE-updates main
deb $SECURITY_MIRROR $SUITE-security main
EOF
    printf 'Acquire::Languages "none";\nAPT::Install-Recommends "false";\n' >"$root/etc/apt/apt.conf.d/90dist-test"
    chroot "$root" apt-get clean
    save_root "$base_cache"
    step "debootstrap done, cached as $base_cache"
fi

install_app() {
    mkdir -p "$root/opt"
    tar -C "$root/opt" -xzf "$tarball"
    ln -sfn "/opt/$name/bin/gallerygen" "$root/usr/local/bin/gallerygen"
}

# 2. Without the runtime packages the binary must fail, naming what is missing.
install_app
mount_proc
status=0
missing=$(chroot "$root" "${CHROOT_ENV[@]}" gallerygen --version 2>&1) || status=$?
if [ $status = 0 ]; then
    echo "dist-test: note: the binary runs without any runtime package ($missing); RUNTIME_PACKAGES may be superfluous"
else
    grep -q 'error while loading shared libraries' <<<"$missing" ||
        die "without the runtime packages, expected a missing-library error, got (exit $status): $missing"
    step "without runtime packages, as expected (exit $status): $missing"
fi
rm -rf -- "$root/opt/$name" "$root/usr/local/bin/gallerygen"

# 3. The runtime packages.
if cached "$rt_cache"; then
    load_root "$rt_cache"
    step "runtime root from $rt_cache"
else
    step "apt-get install ${packages[*]}"
    mount_proc
    cp -L /etc/resolv.conf "$root/etc/resolv.conf" 2>/dev/null || true
    {
        chroot "$root" "${CHROOT_ENV[@]}" apt-get update &&
            chroot "$root" "${CHROOT_ENV[@]}" DEBIAN_FRONTEND=noninteractive \
                apt-get install -y --no-install-recommends "${packages[@]}"
    } >"$work/apt.log" 2>&1 || { tail -n 20 "$work/apt.log" >&2; die "apt-get install failed (log above)"; }
    chroot "$root" apt-get clean
    rm -rf "$root"/var/lib/apt/lists/*
    unmount_all
    save_root "$rt_cache"
    step "installed $(grep -o '[0-9]* newly installed' "$work/apt.log" | cut -d' ' -f1) packages, cached as $rt_cache"
fi

# 4. Build the sample site with the symlinked binary.
install_app
mkdir -p "$root/site"
tar -C "$SITE_DIR" --exclude=./public --exclude=./.gallerygen-cache -cf - . | tar -C "$root/site" -xf -
output=$(sed -n 's/^output:[[:space:]]*\([^[:space:]#]*\).*/\1/p' "$root/site/gallery.yml")
output=${output:-public}
mount_proc
chroot "$root" "${CHROOT_ENV[@]}" gallerygen --version >/dev/null || die "gallerygen --version failed in the root"
step "gallerygen build /site"
status=0
chroot "$root" "${CHROOT_ENV[@]}" gallerygen build /site >"$work/build.log" 2>&1 || status=$?
sed 's/^/    /' "$work/build.log"
[ $status = 0 ] || die "gallerygen build /site exited with $status"
[ -s "$root/site/$output/index.html" ] || die "no /site/$output/index.html"
thumbs=$(find "$root/site/$output" -type f \( -name '*.webp' -o -name '*.jpg' -o -name '*.avif' -o -name '*.png' \) | wc -l)
[ "$thumbs" -gt 0 ] || die "no thumbnails under /site/$output"
step "built: /site/$output/index.html and $thumbs images"

# 5. The GitLab example's job, in this root, fetching the tarball from 127.0.0.1.
if [ -n "${GITLAB_JOB:-}" ]; then
    [ -f "$GITLAB_JOB" ] || die "GITLAB_JOB=$GITLAB_JOB: no such file"
    command -v python3 >/dev/null || die "python3 is needed to serve the tarball to the job"
    port_file=$work/port
    python3 - "$(dirname "$tarball")" "$port_file" <<'PY' &
import functools, http.server, sys
class Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass
handler = functools.partial(Quiet, directory=sys.argv[1])
server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
open(sys.argv[2], "w").write(str(server.server_port))
server.serve_forever()
PY
    server_pid=$!
    for _ in $(seq 100); do [ -s "$port_file" ] && break; sleep 0.05; done
    [ -s "$port_file" ] || die "the tarball server did not start"
    mkdir -p "$root/project"
    tar -C "$SITE_DIR" --exclude=./public --exclude=./.gallerygen-cache -cf - . | tar -C "$root/project" -xf -
    cp "$GITLAB_JOB" "$root/gitlab-job.sh"
    cp -L /etc/resolv.conf "$root/etc/resolv.conf" 2>/dev/null || true
    step "the GitLab example's job in the root"
    status=0
    chroot "$root" "${CHROOT_ENV[@]}" CI=true GITLAB_CI=true CI_PROJECT_DIR=/project \
        GALLERYGEN_URL="http://127.0.0.1:$(cat "$port_file")/$name.tar.gz" \
        bash -c 'cd /project && bash /gitlab-job.sh' >"$work/gitlab.log" 2>&1 || status=$?
    grep -v '^Selecting\|^Preparing\|^Unpacking\|^Setting up\|^(Reading\|^debconf' "$work/gitlab.log" | sed 's/^/    /' | tail -n 30
    [ $status = 0 ] || die "the GitLab job exited with $status"
    [ -s "$root/project/public/index.html" ] || die "the GitLab job wrote no /project/public/index.html"
    grep -q '"exit_code" : 0' "$root/project/gallerygen-report.json" || die "the GitLab job's report does not say exit_code 0"
    step "GitLab job: /project/public/index.html and a report with exit_code 0"
fi
