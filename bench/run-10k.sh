#!/usr/bin/env bash
# gallerygen at 10,000 feed entries (small 640x480 photos, to keep the corpus small): the cold
# build, a no-change rebuild while every entry is fresh in the cache (nginx sends
# Cache-Control: max-age; the build is up to date and ends after its check), the same rebuild in
# full (--full), and a rebuild that revalidates every entry (--refresh: all 304).
# Request counts from nginx's access log; time per stage from gallerygen's reports.
#
#   bench/run-10k.sh        (make bench BENCH_SCENARIO=10k; BENCH_PORT=8091)
set -euo pipefail
cd "$(dirname "$0")/.."
count=${BENCH_10K_COUNT:-10000}
port=${BENCH_PORT:-8091}
bin=${GALLERYGEN:-.build/release/gallerygen}
work=$PWD/bench-work/$count-640x480
corpus=$work/corpus
run=$work/nginx

# 10,000 distinct URLs over 1,000 distinct photos (the rest hard links): what is measured here
# is the cost per URL of a rebuild, not encoding.
python3 bench/make-corpus.py "$corpus" --count "$count" --size 640x480 --distinct 1000 --base-url "http://127.0.0.1:$port" >&2
bench/serve.sh stop "$run" 2>/dev/null || true
MAX_AGE=3600 bench/serve.sh start "$corpus" "$port" "$run"
trap 'bench/serve.sh stop "$run"' EXIT

site=$work/site
rm -rf "$site" && mkdir -p "$site"
cat >"$site/gallery.yml" <<YML
title: Ten thousand
feed: http://127.0.0.1:$port/feed.json
images:
  widths: [480, 960]
YML

results=()
measure() {
  local name=$1; shift
  local start_line; start_line=$(wc -l <"$run/access.log")
  /usr/bin/time -f "%e %M %U %S" -o "$work/time.txt" "$bin" build "$site" --report "$work/$name.json" "$@" \
    >"$work/$name.log" 2>&1 || { cat "$work/$name.log" >&2; exit 1; }
  read -r wall rss user sys <"$work/time.txt"
  read -r ok nm <<<"$(tail -n +"$((start_line + 1))" "$run/access.log" | awk '{ if ($1==200) ok++; if ($1==304) nm++ } END { printf "%d %d", ok, nm }')"
  stages=$(python3 -c 'import json,sys; s=json.load(open(sys.argv[1]))["seconds"]; print(" ".join(f"{k}={s[k]:.2f}" for k in ("check","feed","load","render","manifest","write") if k in s))' "$work/$name.json")
  results+=("$(printf '%-10s %8.2f %10.0f %6.0f %6d %6d   %s' "$name" "$wall" "$((rss / 1024))" "$(echo "100 * ($user + $sys) / ($wall + 0.001)" | bc -l)" "$ok" "$nm" "$stages")")
}

measure cold
measure fresh
measure full --full
measure revalidate --refresh

echo
echo "gallerygen at $count feed entries ($(ls "$corpus/photos" | grep -c 'jpg$') photo URLs, 1000 distinct 640x480 photos), widths 480 960, $(nproc) cores"
printf '%-10s %8s %10s %6s %6s %6s   %s\n' scenario wall_s max_rss_MB cpu_% 200s 304s "seconds per stage"
printf '%s\n' "${results[@]}"
