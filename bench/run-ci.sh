#!/usr/bin/env bash
# BENCH_SCENARIO=ci: a fresh CI runner seeded from the live site. BENCH_COUNT real 12-megapixel
# photos on one nginx (the photo host); a cold build of a site with the default image settings
# is published on a second nginx (the live site); then the same site is built again with an empty
# cache and --seed pointing at the live site. Prints both times and their ratio (goal: at most
# 5%), what the seeded build downloaded and encoded (goal: nothing), and whether its output is
# byte-identical to the published site.
#
#   bench/run-ci.sh       (BENCH_COUNT=200; BENCH_SIZE=4000x3000; BENCH_PORT=8089 and the next port)
set -euo pipefail
cd "$(dirname "$0")/.."
count=${BENCH_COUNT:-200}
size=${BENCH_SIZE:-4000x3000}
port=${BENCH_PORT:-8089}
live_port=$((port + 1))
bin=${GALLERYGEN:-.build/release/gallerygen}
work=$PWD/bench-work/ci-$count-$size
corpus=$PWD/bench-work/$count-$size/corpus

python3 bench/make-corpus.py "$corpus" --count "$count" --size "$size" --base-url "http://127.0.0.1:$port" >&2
rm -rf "$work" && mkdir -p "$work"
bench/serve.sh start "$corpus" "$port" "$work/origin"
trap 'bench/serve.sh stop "$work/origin"; bench/serve.sh stop "$work/live"' EXIT

site() { # DIR: a site of the feed with the default image settings
  mkdir -p "$1"
  printf 'title: Benchmark\nfeed: http://127.0.0.1:%s/feed.json\n' "$port" >"$1/gallery.yml"
}
# timed NAME COMMAND...: wall seconds and max RSS into $work/NAME.time
timed() {
  local name=$1; shift
  /usr/bin/time -f "%e %M" -o "$work/$name.time" "$@" >"$work/$name.log" 2>&1 || { cat "$work/$name.log" >&2; exit 1; }
}
count_log() { awk -v s="$2" '$1 == s' "$1" | wc -l; }

site "$work/published"
timed cold "$bin" build "$work/published" --report "$work/cold.json"
# The live site serves what the cold build wrote.
mkdir -p "$work/www" && cp -a "$work/published/public/." "$work/www/"
bench/serve.sh start "$work/www" "$live_port" "$work/live"
: >"$work/origin/access.log"

site "$work/runner"
timed seeded "$bin" build "$work/runner" --seed "http://127.0.0.1:$live_port/" --report "$work/seeded.json"

read -r cold_wall cold_rss <"$work/cold.time"
read -r seeded_wall seeded_rss <"$work/seeded.time"
identical=yes
diff -rq "$work/published/public" "$work/runner/public" >"$work/diff.txt" || identical="no ($(wc -l <"$work/diff.txt") files differ, see $work/diff.txt)"
python3 - "$work" "$cold_wall" "$seeded_wall" "$identical" \
  "$(count_log "$work/origin/access.log" 200)" "$(count_log "$work/origin/access.log" 304)" \
  "$(wc -l <"$work/live/access.log")" "$(awk '{ b += $2 } END { print b + 0 }' "$work/live/access.log")" <<'PY'
import json, sys
work, cold, seeded, identical, ok, nm, live_requests, live_bytes = sys.argv[1:]
c = json.load(open(f"{work}/seeded.json"))["counts"]
cold_counts = json.load(open(f"{work}/cold.json"))["counts"]
print(f"\nBENCH_SCENARIO=ci: {cold_counts['photos']} photos, default image settings (5 widths, WebP)")
print(f"cold build (empty cache, no seed):  {float(cold):7.2f} s  ({cold_counts['downloaded']} downloaded, {cold_counts['processed']} encoded)")
print(f"seeded build (empty cache, --seed): {float(seeded):7.2f} s  = {100 * float(seeded) / float(cold):.1f}% of cold (goal: at most 5%)")
print(f"  originals downloaded {c['downloaded']}, revalidated {c['not_modified']}, encoded {c['processed']}, thumbnail sets from the seed {c['seeded']}")
print(f"  photo host: {ok} x 200 (the feed), {nm} x 304; live site: {live_requests} requests, {int(live_bytes) / 1e6:.1f} MB")
print(f"  output byte-identical to the published site: {identical}")
PY
