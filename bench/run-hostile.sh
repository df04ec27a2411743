#!/usr/bin/env bash
# gallerygen against hostile input, the figures its limits rest on:
#
# 1. memory: an 8-photo build whose remote cache store answers every object with 255 MiB of
#    garbage (bench/hostile-store.py): the peak RSS stays bounded by the tier's byte budget;
# 2. time: a build whose index.md is 32 KB (the limit) of cmark-gfm's worst known texts
#    (`![[]()` and `<http://a` repeated, quadratic in Debian 12's libcmark-gfm).
#
#   bench/run-hostile.sh        (make bench BENCH_SCENARIO=hostile; BENCH_PORT=8093)
set -euo pipefail
cd "$(dirname "$0")/.."
port=${BENCH_PORT:-8093}
bin=${GALLERYGEN:-.build/release/gallerygen}
work=$PWD/bench-work/hostile
rm -rf "$work" && mkdir -p "$work"

python3 bench/hostile-store.py "$port" &
store=$!
trap 'kill $store 2>/dev/null || true' EXIT
for _ in $(seq 50); do curl -s -o /dev/null -I "http://127.0.0.1:$port/" && break; sleep 0.1; done

site=$work/remote
mkdir -p "$site/photos"
for i in 1 2 3 4 5 6 7 8; do vips black "$site/photos/p$i.jpg" $((200 + i)) 150 --bands 3; done
printf 'title: Hostile store\nfeed: photos\nimages:\n  widths: [64]\nremote_cache: http://127.0.0.1:%s/\n' "$port" \
  >"$site/gallery.yml"
/usr/bin/time -f "%e %M" -o "$work/time.txt" "$bin" build "$site" --quiet >"$work/remote.log" 2>&1
read -r wall rss <"$work/time.txt"
printf '| 8 photos, every remote object 255 MiB of garbage | %s s | %d MiB |\n' "$wall" "$((rss / 1024))"

for pattern in '![[]()' '<http://a'; do
  site=$work/intro
  rm -rf "$site" && mkdir -p "$site/photos"
  vips black "$site/photos/p.jpg" 64 48 --bands 3
  printf 'title: Intro\nfeed: photos\nimages:\n  widths: [64]\n' >"$site/gallery.yml"
  python3 -c "import sys; p = sys.argv[1]; sys.stdout.write((p * 40000)[:32 * 1024])" "$pattern" >"$site/index.md"
  /usr/bin/time -f "%e %M" -o "$work/time.txt" "$bin" build "$site" --quiet >"$work/intro.log" 2>&1
  read -r wall rss <"$work/time.txt"
  printf '| index.md of 32 KB of `%s` | %s s | %d MiB |\n' "$pattern" "$wall" "$((rss / 1024))"
done
