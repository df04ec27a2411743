#!/usr/bin/env bash
# gallerygen on a folder of 100,000 photos (the 100k corpus's 640x480 photos, 1,000 distinct, the
# rest hard links, linked into the site's own `photos/` folder: `feed: photos`), the way most
# photographers keep them. Four builds: cold; nothing changed; one photo's caption changed (an XMP
# sidecar added beside it); one new photo added (new bytes, sorted last, in the same folder); then
# `gallerygen serve` on it, a caption saved and the time until the page is told to reload. Wall
# time, max RSS and CPU from /usr/bin/time, seconds per stage, whether the build was up to date
# and the files it wrote from gallerygen's --report. Goals (issue 52; printed met/missed): nothing
# changed at most 1.5 s, one caption at most 2 s, one photo added at most 3 s plus its thumbnails,
# and the files one added photo writes. About 8 minutes on 2 cores and 1 GB of disk; the corpus is
# run-100k.sh's (made on the first run).
#
#   bench/run-folder-100k.sh            (bench-work/folder-100000)
#   BENCH_FOLDER_COUNT=2000 bench/run-folder-100k.sh    (a quick check of the script)
#   GALLERYGEN=BIN picks the binary (default .build/release/gallerygen, `make release`).
set -euo pipefail
cd "${PROJECT_DIR:-$(dirname "$0")/..}"
count=${BENCH_FOLDER_COUNT:-100000}
bin=${GALLERYGEN:-.build/release/gallerygen}
bin=$(realpath "$bin")
work=$PWD/bench-work/folder-$count
corpus=$PWD/bench-work/$count-640x480/corpus
mkdir -p "$work"

. bench/run-facts.sh
run_start

# The corpus's photos (its feed's base URL is not used here).
python3 bench/make-corpus.py "$corpus" --count "$count" --size 640x480 --distinct 1000 \
  --base-url "http://127.0.0.1:1" >&2

site=$work/site
rm -rf "$site" && mkdir -p "$site"
# Hard links: the photos' bytes are the corpus's, the folder the site's own.
cp -al "$corpus/photos" "$site/photos"
cat >"$site/gallery.yml" <<YML
title: A folder of $count photos
feed: photos
images:
  widths: [480, 960]
YML

results=()
declare -A wall written uptodate
# measure NAME [BUILD OPTIONS...]: one build, timed, with its stages, files written and whether
# it was up to date.
measure() {
  local name=$1; shift
  # The build before wrote up to 500 MB of pages: the kernel writes them back first.
  sync; sleep 10
  local load; load=$(cut -d' ' -f1 /proc/loadavg)
  echo "$name: building… (load $load)" >&2
  /usr/bin/time -f "%e %M %U %S" -o "$work/time.txt" "$bin" build "$site" --report "$work/$name.json" "$@" \
    >"$work/$name.log" 2>&1 || { echo "$name: build failed:" >&2; cat "$work/$name.log" "$work/time.txt" >&2; exit 1; }
  local s_wall s_rss user sys stages facts
  read -r s_wall s_rss user sys <"$work/time.txt"
  stages=$(python3 -c 'import json,sys; s=json.load(open(sys.argv[1]))["seconds"]; print(" ".join("%8.2f" % s.get(k, 0) for k in ("check","feed","load","images","render","write","total")))' "$work/$name.json")
  facts=$(python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); c=r["counts"]; print(c.get("files_written", 0), c.get("processed", 0), "yes" if r.get("up_to_date") else "no")' "$work/$name.json")
  local files processed fresh
  read -r files processed fresh <<<"$facts"
  wall[$name]=$s_wall; written[$name]=$files; uptodate[$name]=$fresh
  results+=("$(awk -v n="$name" -v w="$s_wall" -v r="$(((s_rss + 512) / 1024))" -v u="$user" -v s="$sys" -v st="$stages" \
    -v f="$files" -v p="$processed" -v d="$fresh" -v l="$load" \
    'BEGIN { printf "%-14s %8.2f %10d %6.0f %s %8d %9d %6s %6.2f", n, w, r, 100 * (u + s) / (w > 0 ? w : 1), st, f, p, d, l }')")
  echo "$name: ${s_wall} s" >&2
}

measure cold
measure no-change

# One caption: an XMP sidecar beside a photo in the middle of the folder.
middle=$(printf '%05d' $((count / 2)))
cat >"$site/photos/$middle.xmp" <<XMP
<x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">
<rdf:Description rdf:about="" xmlns:dc="http://purl.org/dc/elements/1.1/">
<dc:description><rdf:Alt><rdf:li xml:lang="x-default">A caption fixed at $(date +%T)</rdf:li></rdf:Alt></dc:description>
</rdf:Description></rdf:RDF></x:xmpmeta>
XMP
measure one-caption

# One new photo: new bytes (a corpus photo with one byte more after its end), sorted last.
cat "$site/photos/00001.jpg" >"$site/photos/zz-new.jpg"
printf 'x' >>"$site/photos/zz-new.jpg"
measure one-added

# gallerygen serve on the folder: a caption saved (a Markdown sidecar beside another photo), and
# the time until the open page hears it should reload (then the page must show it).
sync; sleep 10
third=$(printf '%05d' $((count / 3)))
serve_line=$(python3 bench/serve-edit.py "$bin" "$site" "$third" "photos/$third*.html" 2>"$work/serve.log") \
  || { echo "serve: failed:" >&2; cat "$work/serve.log" >&2; exit 1; }
read -r _ reload_s _ reload_shown <<<"$serve_line"

goal() { # TEXT VALUE LIMIT UNIT
  awk -v t="$1" -v v="$2" -v l="$3" -v u="$4" 'BEGIN { printf "  %-44s %9.2f %-3s (goal <= %g %s): %s\n", t, v, u, l, u, (v <= l ? "met" : "MISSED") }'
}

echo
echo "gallerygen on a folder of $count photos ($(find "$site/photos" -name '*.jpg' | wc -l) files over 1,000 distinct 640x480 photos, hard links); widths 480 960; $(nproc) cores"
run_facts
echo
printf '%-14s %8s %10s %6s %8s %8s %8s %8s %8s %8s %8s %8s %9s %6s %6s\n' build wall_s max_rss_MB cpu_% \
  check_s feed_s load_s images_s render_s write_s total_s written processed uptodt load1
printf '%s\n' "${results[@]}"
echo
echo "goals (issue 52)"
goal "no-change wall" "${wall[no-change]}" 1.5 s
goal "one-caption wall" "${wall[one-caption]}" 2 s
goal "one-added wall (with its own thumbnails)" "${wall[one-added]}" 3 s
echo "  one-added files written: ${written[one-added]} (of the site's $(find "$site/public" -type f | wc -l))"
goal "serve: saved caption to reload" "$reload_s" 2 s
echo "  serve: the reloaded page shows the caption: $reload_shown"
echo "(MB = MiB; cpu % = (user + sys) / wall; *_s from the --report JSON's seconds; images overlaps load;"
echo " written and processed from its counts; uptodt: the build ended up to date; load1 = the 1-minute load average as it started)"
echo "reports: $work/{cold,no-change,one-caption,one-added}.json"
