#!/usr/bin/env bash
# BENCH_SCENARIO=shards: one build spread over 4 machines. BENCH_COUNT real 12-megapixel photos
# on one nginx (the photo host), a second nginx with WebDAV PUT as the remote cache tier. Runs:
#   cold    one machine, no remote cache (the baseline);
#   shard K --shard K/4 with the remote cache, each on an empty local cache, one after another
#           (as 4 runners would run them at once: the slowest is the matrix's wall time);
#   final   an ordinary build on an empty local cache with the remote cache (the publish job);
#   fresh   the same again on another empty cache (any new machine, once the remote is warm).
# Prints each time against cold (goals: largest shard at most 0.3 of cold, final and fresh at
# most 5%), what final downloaded and encoded, the photo host's and the remote's request counts,
# and whether final's output is byte-identical to cold's.
#
#   bench/run-shards.sh   (BENCH_COUNT=1000; BENCH_SIZE=4000x3000; BENCH_PORT=8093 and the next port)
set -euo pipefail
cd "$(dirname "$0")/.."
count=${BENCH_COUNT:-1000}
size=${BENCH_SIZE:-4000x3000}
port=${BENCH_PORT:-8093}
dav_port=$((port + 1))
shards=4
bin=${GALLERYGEN:-.build/release/gallerygen}
work=$PWD/bench-work/shards-$count-$size
corpus=$PWD/bench-work/$count-$size/corpus

python3 bench/make-corpus.py "$corpus" --count "$count" --size "$size" --base-url "http://127.0.0.1:$port" >&2
rm -rf "$work" && mkdir -p "$work/store" && chmod 777 "$work/store"
bench/serve.sh start "$corpus" "$port" "$work/origin"
DAV=1 bench/serve.sh start "$work/store" "$dav_port" "$work/remote"
trap 'bench/serve.sh stop "$work/origin"; bench/serve.sh stop "$work/remote"' EXIT

site() { # DIR [remote]: a site of the feed with the default image settings
  mkdir -p "$1"
  printf 'title: Benchmark\nfeed: http://127.0.0.1:%s/feed.json\n' "$port" >"$1/gallery.yml"
  if [ -n "${2:-}" ]; then printf 'remote_cache: http://127.0.0.1:%s/cache/\n' "$dav_port" >>"$1/gallery.yml"; fi
}
# timed NAME DIR [ARGS...]: builds DIR; wall seconds and max RSS into $work/NAME.time, requests to
# the photo host and to the remote (200s, 304s, PUTs) into $work/NAME.requests
timed() {
  local name=$1 dir=$2; shift 2
  : >"$work/origin/access.log"; : >"$work/remote/access.log"
  /usr/bin/time -f "%e %M" -o "$work/$name.time" "$bin" build "$dir" --report "$work/$name.json" "$@" \
    >"$work/$name.log" 2>&1 || { cat "$work/$name.log" >&2; exit 1; }
  echo "$(awk '$1 == 200' "$work/origin/access.log" | wc -l) $(awk '$1 == 304' "$work/origin/access.log" | wc -l)" \
    "$(awk '$4 == "GET" && $1 == 200' "$work/remote/access.log" | wc -l) $(awk '$4 == "PUT"' "$work/remote/access.log" | wc -l)" \
    "$(awk '$4 == "PUT" && $3 ~ /\/v1\/sets\//' "$work/remote/access.log" | sort -u -k3,3 | wc -l)" \
    >"$work/$name.requests"
}

site "$work/cold"
timed cold "$work/cold"
for k in $(seq "$shards"); do
  site "$work/shard$k" remote
  timed "shard$k" "$work/shard$k" --shard "$k/$shards"
done
site "$work/final" remote
timed final "$work/final"
site "$work/fresh" remote
timed fresh "$work/fresh"

identical() { diff -rq "$work/cold/public" "$1/public" >"$work/diff.txt" && echo yes || echo "no ($(wc -l <"$work/diff.txt") files differ)"; }
python3 - "$work" "$shards" "$(identical "$work/final")" "$(identical "$work/fresh")" <<'PY'
import json, sys
work, shards, final_same, fresh_same = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
def wall(name): return float(open(f"{work}/{name}.time").read().split()[0])
def rss(name): return int(open(f"{work}/{name}.time").read().split()[1]) / 1024
def requests(name): return [int(x) for x in open(f"{work}/{name}.requests").read().split()]
def counts(name): return json.load(open(f"{work}/{name}.json"))["counts"]
cold = wall("cold")
names = ["cold"] + [f"shard{k}" for k in range(1, shards + 1)] + ["final", "fresh"]
print(f"\nBENCH_SCENARIO=shards: {counts('cold')['photos']} photos, default image settings, {shards} shards")
print(f"{'build':8} {'wall_s':>8} {'of_cold':>8} {'rss_MB':>7} {'photos':>6} {'encoded':>7} {'host200':>7} {'host304':>7} {'remoteGET':>9} {'remotePUT':>9}")
for name in names:
    c, r = counts(name), requests(name)
    print(f"{name:8} {wall(name):8.2f} {wall(name) / cold:8.3f} {rss(name):7.0f} {c['photos']:6d} {c['processed']:7d} {r[0]:7d} {r[1]:7d} {r[2]:9d} {r[3]:9d}")
largest = max(wall(f"shard{k}") for k in range(1, shards + 1))
total_shards = sum(wall(f"shard{k}") for k in range(1, shards + 1))
set_puts = sum(requests(f"shard{k}")[3] for k in range(1, shards + 1))
distinct_sets = sum(requests(f"shard{k}")[4] for k in range(1, shards + 1))
downloads = sum(requests(f"shard{k}")[0] for k in range(1, shards + 1)) - shards  # less the feed
def verdict(ok): return "met" if ok else "MISSED"
print(f"largest shard {largest:.2f} s = {largest / cold:.3f} of cold (goal at most 0.3, ideal 0.25): {verdict(largest / cold <= 0.3)}")
print(f"  all shards together {total_shards:.2f} s = {total_shards / cold:.3f} of cold (the work the matrix adds)")
print(f"final {wall('final'):.2f} s = {100 * wall('final') / cold:.1f}% of cold (goal at most 5%): {verdict(wall('final') / cold <= 0.05)}"
      f"; downloaded {counts('final')['downloaded']}, encoded {counts('final')['processed']}; byte-identical to cold: {final_same}")
print(f"fresh {wall('fresh'):.2f} s = {100 * wall('fresh') / cold:.1f}% of cold (goal at most 5%): {verdict(wall('fresh') / cold <= 0.05)}"
      f"; downloaded {counts('fresh')['downloaded']}, encoded {counts('fresh')['processed']}; byte-identical to cold: {fresh_same}")
print(f"shards downloaded {downloads} originals for {counts('cold')['urls']} photo URLs; PUT {set_puts} objects, {distinct_sets} distinct sets")
PY
