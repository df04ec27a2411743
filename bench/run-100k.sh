#!/usr/bin/env bash
# gallerygen at 100,000 feed entries (small 640x480 photos, 1,000 distinct, the rest hard links, as
# in run-10k.sh): the cold build, a no-change rebuild while every entry is fresh in the cache
# (nginx sends Cache-Control: max-age; the build is up to date and ends after its check), the
# same rebuild in full (--full: every stage run, nothing written), and a rebuild that revalidates
# every entry (--refresh: all 304); and, as the baseline for memory growth, the 10,000-entry cold build on the same kind of
# corpus. Wall time, max RSS and CPU from /usr/bin/time, request counts from nginx's access log,
# seconds per stage from gallerygen's --report, and the sizes of the output, the manifest and the
# cache. Goals (printed met/missed): fresh at most 1.0 s, full at most 1.5 s, --refresh at most 8 s and 1 GiB max RSS,
# the 100k cold build's max RSS at most 400 MiB and 3x the 10k one's. About 10-15 minutes on 2 cores (the
# first run also makes the corpora: 1,000 photos each plus hard links) and about 1 GB of disk.
#
#   bench/run-100k.sh       (BENCH_100K_PORT=8092 and bench-work/100000-640x480; the 10k baseline
#                            on BENCH_PORT=8091, corpus shared with run-10k.sh, its site and
#                            reports in bench-work/10000-640x480/for-100k)
#   BENCH_100K_COUNT=2000 BENCH_100K_BASELINE=1000 bench/run-100k.sh     (a quick check of the script)
#   PROJECT_DIR=DIR runs it against the project in DIR (default: the folder above this script).
set -euo pipefail
cd "${PROJECT_DIR:-$(dirname "$0")/..}"
count=${BENCH_100K_COUNT:-100000}
base_count=${BENCH_100K_BASELINE:-10000}
port=${BENCH_100K_PORT:-8092}
base_port=${BENCH_PORT:-8091}
bin=${GALLERYGEN:-.build/release/gallerygen}
distinct=1000

work=$PWD/bench-work/$count-640x480
base_corpus=$PWD/bench-work/$base_count-640x480/corpus
base_work=$PWD/bench-work/$base_count-640x480/for-100k
mkdir -p "$work" "$base_work"

. bench/run-facts.sh
run_start

# NAME CORPUS PORT: the corpus (count URLs over 1,000 distinct photos; kept between runs).
corpus() {
  python3 bench/make-corpus.py "$1" --count "$2" --size 640x480 --distinct "$distinct" \
    --base-url "http://127.0.0.1:$3" >&2
}
corpus "$base_corpus" "$base_count" "$base_port"
corpus "$work/corpus" "$count" "$port"

servers=()
stop_servers() { local r; for r in "${servers[@]}"; do bench/serve.sh stop "$r"; done; }
trap stop_servers EXIT
serve() { # CORPUS PORT RUNDIR
  bench/serve.sh stop "$3" 2>/dev/null || true
  MAX_AGE=3600 bench/serve.sh start "$1" "$2" "$3"
  servers+=("$3")
}
new_site() { # SITE PORT TITLE
  rm -rf "$1" && mkdir -p "$1"
  cat >"$1/gallery.yml" <<YML
title: $3
feed: http://127.0.0.1:$2/feed.json
images:
  widths: [480, 960]
YML
}

declare -A wall rss urls
results=()
# measure NAME WORK SITE [BUILD OPTIONS...]: one build, timed, with its requests and stages.
measure() {
  local name=$1 w=$2 site=$3; shift 3
  local log=$w/nginx/access.log
  local start_line; start_line=$(wc -l <"$log")
  # The build before wrote up to 500 MB of pages: let the kernel write them back first, so that
  # this build is not timed flushing the last one's files.
  sync; sleep 10
  local load; load=$(cut -d' ' -f1 /proc/loadavg)
  echo "$name: building… (load $load)" >&2
  /usr/bin/time -f "%e %M %U %S" -o "$w/time.txt" "$bin" build "$site" --report "$w/$name.json" "$@" \
    >"$w/$name.log" 2>&1 || { echo "$name: build failed:" >&2; cat "$w/$name.log" "$w/time.txt" >&2; exit 1; }
  local s_wall s_rss user sys ok nm stages
  read -r s_wall s_rss user sys <"$w/time.txt"
  read -r ok nm <<<"$(tail -n +"$((start_line + 1))" "$log" | awk '{ if ($1==200) ok++; if ($1==304) nm++ } END { printf "%d %d", ok, nm }')"
  stages=$(python3 -c 'import json,sys; s=json.load(open(sys.argv[1]))["seconds"]; print(" ".join("%8.2f" % s.get(k, 0) for k in ("check","feed","load","images","render","manifest","write","total")))' "$w/$name.json")
  wall[$name]=$s_wall; rss[$name]=$(((s_rss + 512) / 1024))
  urls[$name]=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["counts"]["urls"])' "$w/$name.json")
  results+=("$(awk -v n="$name" -v w="$s_wall" -v r="${rss[$name]}" -v u="$user" -v s="$sys" -v ok="$ok" -v nm="$nm" -v st="$stages" \
    -v l="$load" 'BEGIN { printf "%-14s %8.2f %10d %6.0f %7d %7d %s %6.2f", n, w, r, 100 * (u + s) / (w > 0 ? w : 1), ok, nm, st, l }')")
  echo "$name: ${s_wall} s, ${rss[$name]} MB" >&2
}

# 1. The baseline: the 10,000-entry cold build.
serve "$base_corpus" "$base_port" "$base_work/nginx"
new_site "$base_work/site" "$base_port" "Ten thousand"
measure "cold-$base_count" "$base_work" "$base_work/site"
bench/serve.sh stop "$base_work/nginx"

# 2-4. 100,000 entries: cold, no change (every entry fresh), --refresh (every entry revalidated).
serve "$work/corpus" "$port" "$work/nginx"
site=$work/site
new_site "$site" "$port" "A hundred thousand"
measure "cold-$count" "$work" "$site"
measure "fresh-$count" "$work" "$site"
measure "full-$count" "$work" "$site" --full
measure "refresh-$count" "$work" "$site" --refresh

# SITE: "output_bytes output_disk output_files manifest_bytes cache_bytes cache_disk cache_files".
sizes() {
  local out=$1/public cache=$1/.gallerygen-cache
  printf '%s %s %s %s %s %s %s' "$(du -sb "$out" | cut -f1)" "$(du -sk "$out" | cut -f1)" "$(find "$out" -type f | wc -l)" \
    "$(stat -c %s "$out/gallery-manifest.json")" "$(du -sb "$cache" | cut -f1)" "$(du -sk "$cache" | cut -f1)" "$(find "$cache" -type f | wc -l)"
}
size_row() { # LABEL SITE
  read -r ob od of mb cb cd cf <<<"$(sizes "$2")"
  awk -v l="$1" -v ob="$ob" -v od="$od" -v of="$of" -v mb="$mb" -v cb="$cb" -v cd="$cd" -v cf="$cf" 'BEGIN {
    printf "%-14s %10.1f %10.1f %8d %12.1f %10.1f %10.1f %8d\n", l, ob / 1048576, od / 1024, of, mb / 1048576, cb / 1048576, cd / 1024, cf }'
}
goal() { # TEXT VALUE LIMIT UNIT
  awk -v t="$1" -v v="$2" -v l="$3" -v u="$4" 'BEGIN { printf "  %-44s %9.2f %-3s (goal <= %g %s): %s\n", t, v, u, l, u, (v <= l ? "met" : "MISSED") }'
}

echo
echo "gallerygen at $count feed entries (${urls[cold-$count]} distinct URLs, $(find "$work/corpus/photos" -name '*.jpg' | wc -l) photo files over $distinct distinct 640x480 photos); baseline $base_count entries (${urls[cold-$base_count]} URLs); widths 480 960; $(nproc) cores"
run_facts
echo
printf '%-14s %8s %10s %6s %7s %7s %8s %8s %8s %8s %8s %8s %8s %8s %6s\n' scenario wall_s max_rss_MB cpu_% 200s 304s \
  check_s feed_s load_s images_s render_s manif_s write_s total_s load1
printf '%s\n' "${results[@]}"
echo
echo "sizes after the last build (MB = MiB; 'disk' is du's allocated size)"
printf '%-14s %10s %10s %8s %12s %10s %10s %8s\n' site output_MB disk_MB files manifest_MB cache_MB disk_MB files
size_row "$base_count" "$base_work/site"
size_row "$count" "$site"
echo
echo "goals"
goal "fresh-$count wall (up to date)" "${wall[fresh-$count]}" 1.0 s
goal "full-$count wall (nothing changed, --full)" "${wall[full-$count]}" 1.5 s
goal "refresh-$count wall" "${wall[refresh-$count]}" 8 s
goal "refresh-$count max RSS" "${rss[refresh-$count]}" 1024 MB
goal "cold-$count max RSS" "${rss[cold-$count]}" 400 MB
goal "cold-$count / cold-$base_count max RSS (${rss[cold-$count]} / ${rss[cold-$base_count]} MB)" \
  "$(awk -v a="${rss[cold-$count]}" -v b="${rss[cold-$base_count]}" 'BEGIN { print a / b }')" 3 x
echo "(MB = MiB; cpu % = (user + sys) / wall; 200s and 304s from nginx's access log; *_s from the --report JSON's seconds;"
echo " images overlaps load; load1 = the 1-minute load average as the build started)"
echo "reports: $work/{cold,fresh,full,refresh}-$count.json, $base_work/cold-$base_count.json"
