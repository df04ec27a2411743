#!/usr/bin/env bash
# gallerygen's benchmark: the reference pipeline (curl --parallel + vipsthumbnail, one process
# per core) and gallerygen's cold build, no-change rebuild and one-change rebuild, in one run, on
# the same feed of real 12-megapixel photos served by nginx on 127.0.0.1, widths 480 and 960,
# WebP q80. Request counts come from nginx's access log.
#
#   bench/run.sh            (BENCH_COUNT=200 by default; BENCH_SIZE=4000x3000; BENCH_PORT=8089)
#   BENCH_CONFIG='downloads: original' bench/run.sh     (lines added to the site's gallery.yml)
set -euo pipefail
cd "$(dirname "$0")/.."
count=${BENCH_COUNT:-200}
size=${BENCH_SIZE:-4000x3000}
port=${BENCH_PORT:-8089}
bin=${GALLERYGEN:-.build/release/gallerygen}
work=$PWD/bench-work/$count-$size
corpus=$work/corpus
run=$work/nginx
jobs=$(nproc)

python3 bench/make-corpus.py "$corpus" --count "$count" --size "$size" --base-url "http://127.0.0.1:$port" >&2
bench/serve.sh stop "$run" 2>/dev/null || true
bench/serve.sh start "$corpus" "$port" "$run"
trap 'bench/serve.sh stop "$run"' EXIT
# The one-change scenario rewrites photo 1; start every run from its original bytes.
git_photo=$corpus/photos/00001.jpg
[ -f "$git_photo.original" ] && cp -p "$git_photo.original" "$git_photo" || cp -p "$git_photo" "$git_photo.original"

log_lines() { wc -l <"$run/access.log"; }
# counts FROM_LINE: "200s 304s bytes" of the requests logged since line FROM_LINE.
counts() { tail -n +"$(($1 + 1))" "$run/access.log" | awk '{ if ($1==200) ok++; if ($1==304) nm++; bytes+=$2 } END { printf "%d %d %d", ok, nm, bytes }'; }

results=()
# measure NAME COMMAND...: wall seconds, max RSS, CPU, requests.
measure() {
  local name=$1; shift
  local start_line; start_line=$(log_lines)
  /usr/bin/time -f "%e %M %U %S" -o "$work/time.txt" "$@" >"$work/$name.log" 2>&1 || { cat "$work/$name.log" >&2; exit 1; }
  read -r wall rss user sys <"$work/time.txt"
  read -r ok nm bytes <<<"$(counts "$start_line")"
  results+=("$name $wall $rss $user $sys $ok $nm $bytes")
}

# 1. The reference pipeline: fetch the feed, download each distinct URL, vipsthumbnail each width.
ref=$work/reference
reference() {
  rm -rf "$ref" && mkdir -p "$ref/originals" "$ref/thumbs"
  curl -fsS "http://127.0.0.1:$port/feed.json" -o "$ref/feed.json"
  python3 -c '
import json, sys
out = sys.argv[1]
urls = sorted({e["url"] for e in json.load(open(out + "/feed.json"))})
with open(out + "/curl.cfg", "w") as f:
    for i, u in enumerate(urls):
        f.write(f"url = \"{u}\"\noutput = \"{out}/originals/{i:05d}.jpg\"\n")' "$ref"
  curl -fsS --parallel --parallel-max 16 -K "$ref/curl.cfg"
  ls "$ref/originals" | xargs -P "$jobs" -I{} sh -c '
    for w in 480 960; do vipsthumbnail "'"$ref"'/originals/{}" --size "${w}x" -o "'"$ref"'/thumbs/%s-${w}.webp[Q=80,strip]"; done'
}
export -f reference; export ref port jobs
measure reference bash -c reference

# 2-4. gallerygen: cold, no change, one change.
site=$work/site
rm -rf "$site" && mkdir -p "$site"
cat >"$site/gallery.yml" <<YML
title: Benchmark
feed: http://127.0.0.1:$port/feed.json
images:
  widths: [480, 960]
  formats: [webp]
  quality: 80
${BENCH_CONFIG:-}
YML
measure cold "$bin" build "$site" --report "$work/cold.json"
measure no-change "$bin" build "$site" --report "$work/no-change.json"
vips linear "$git_photo.original" "$git_photo.tmp.jpg[Q=88]" "0.9 1.0 1.1" "0 0 0" --uchar && mv "$git_photo.tmp.jpg" "$git_photo"
measure one-change "$bin" build "$site" --report "$work/one-change.json"
cp -p "$git_photo.original" "$git_photo"

ref_bytes=$(du -sb "$ref/thumbs" | cut -f1)
gg_bytes=$(du -sb "$site/public/images" | cut -f1)
ref_wall=$(echo "${results[0]}" | cut -d' ' -f2)
cold_wall=$(echo "${results[1]}" | cut -d' ' -f2)
echo
echo "gallerygen benchmark: $count feed entries, $(ls "$corpus/photos" | grep -c 'jpg$') photos of $size, widths 480 960, WebP q80, $jobs cores"
printf '%-12s %8s %-22s %10s %6s %6s %6s %8s %10s\n' scenario wall_s ratio max_rss_MB cpu_% 200s 304s MB_sent MB_written
for row in "${results[@]}"; do
  read -r name wall rss user sys ok nm bytes <<<"$row"
  if [ "$name" = reference ]; then written=$(du -sb "$ref/thumbs" | cut -f1); else
    written=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["counts"]["bytes_written"])' "$work/$name.json"); fi
  awk -v n="$name" -v w="$wall" -v r="$rss" -v u="$user" -v s="$sys" -v ok="$ok" -v nm="$nm" -v b="$bytes" -v ref="$ref_wall" \
      -v cold="$cold_wall" -v wr="$written" 'BEGIN {
    ratio = (n == "reference") ? "1.00" : sprintf("%.2f", w / ref);
    if (n == "no-change" || n == "one-change") ratio = ratio sprintf(" (%.1f%% of cold)", 100 * w / cold);
    printf "%-12s %8.2f %-22s %10.0f %6.0f %6d %6d %8.1f %10.2f\n", n, w, ratio, r / 1024, 100 * (u + s) / (w > 0 ? w : 1), ok, nm, b / 1e6, wr / 1e6 }'
done
awk -v a="$gg_bytes" -v b="$ref_bytes" 'BEGIN { printf "thumbnail bytes: gallerygen %.1f MB, vipsthumbnail %.1f MB (%+.1f%%)\n", a / 1e6, b / 1e6, 100 * (a - b) / b }'
echo "reports: $work/{cold,no-change,one-change}.json"
