#!/usr/bin/env bash
# BENCH_SCENARIO=video: clips. BENCH_CLIPS (20) clips of BENCH_CLIP_SECONDS (8) seconds, 1920x1080
# H.264 with AAC as a phone writes them (every fourth one upright, 1080x1920), served by nginx on
# 127.0.0.1 in a JSON feed. Runs, in one go:
#   logging    a build with ffmpeg and ffprobe behind a shim that logs each command line (not timed);
#   reference  those same command lines run alone: each clip's in order, as many clips at once as
#              the machine has cores (what a script calling ffmpeg would take);
#   cold       gallerygen's build on an empty cache (download, probe, poster and its thumbnails,
#              web videos, pages);
#   no-change  the rebuild: nothing transcoded, only conditional requests.
# Prints wall time, max RSS and CPU of each, gallerygen's overhead over the reference (goal: at
# most 5%), and the requests nginx saw.
#
#   bench/run-video.sh   (BENCH_CLIPS=20; BENCH_CLIP_SECONDS=8; BENCH_PORT=8091)
set -euo pipefail
cd "$(dirname "$0")/.."
count=${BENCH_CLIPS:-20}
seconds=${BENCH_CLIP_SECONDS:-8}
port=${BENCH_PORT:-8091}
bin=${GALLERYGEN:-.build/release/gallerygen}
bin=$(cd "$(dirname "$bin")" && pwd)/$(basename "$bin")
work=$PWD/bench-work/video-$count-$seconds
corpus=$work/corpus
jobs=$(nproc)

# The clips: a moving test pattern with a tone, encoded as a phone would (high bitrate, fast).
mkdir -p "$corpus/clips"
for i in $(seq -w 1 "$count"); do
  clip=$corpus/clips/$i.mp4
  [ -s "$clip" ] && continue
  if [ $((10#$i % 4)) = 0 ]; then size=1080x1920; else size=1920x1080; fi
  ffmpeg -nostdin -v error -y -f lavfi -i "testsrc2=size=$size:rate=30:duration=$seconds" \
    -f lavfi -i "sine=frequency=$((200 + 10#$i * 20)):duration=$seconds" \
    -c:v libx264 -preset veryfast -b:v 12M -pix_fmt yuv420p -c:a aac -b:a 192k "$clip.tmp.mp4"
  mv "$clip.tmp.mp4" "$clip"
done
python3 -c '
import json, sys
count, port = int(sys.argv[1]), sys.argv[2]
entries = [{"title": f"Clip {i}", "imageUrl": f"http://127.0.0.1:{port}/clips/{i:0{len(str(count))}d}.mp4"}
           for i in range(1, count + 1)]
json.dump(entries, open(sys.argv[3], "w"))' "$count" "$port" "$corpus/feed.json"

bench/serve.sh stop "$work/nginx" 2>/dev/null || true
bench/serve.sh start "$corpus" "$port" "$work/nginx"
trap 'bench/serve.sh stop "$work/nginx"' EXIT

site() { # DIR: a site of the feed
  rm -rf "$1" && mkdir -p "$1"
  printf 'title: Clips\nfeed: http://127.0.0.1:%s/feed.json\nimages:\n  widths: [480, 960]\nvideo:\n  heights: [720]\n' \
    "$port" >"$1/gallery.yml"
}

results=()
# measure NAME COMMAND...: wall seconds, max RSS, CPU seconds, requests nginx answered 200 and 304.
measure() {
  local name=$1; shift
  : >"$work/nginx/access.log"
  /usr/bin/time -f "%e %M %U %S" -o "$work/time.txt" "$@" >"$work/$name.log" 2>&1 || { cat "$work/$name.log" >&2; exit 1; }
  read -r wall rss user sys <"$work/time.txt"
  ok=$(awk '$1 == 200' "$work/nginx/access.log" | wc -l)
  nm=$(awk '$1 == 304' "$work/nginx/access.log" | wc -l)
  results+=("$name $wall $rss $user $sys $ok $nm")
}

# 1. The logging build: the shim records every ffmpeg and ffprobe command line, then runs it.
shim=$work/shim
mkdir -p "$shim"
for tool in ffmpeg ffprobe; do
  cat >"$shim/$tool" <<SHIM
#!/usr/bin/env python3
import json, os, sys
with open("$work/commands.jsonl", "a") as log:
    log.write(json.dumps(["$tool"] + sys.argv[1:]) + "\n")
os.execv("/usr/bin/$tool", ["$tool"] + sys.argv[1:])
SHIM
  chmod +x "$shim/$tool"
done
rm -f "$work/commands.jsonl"
site "$work/logged"
PATH="$shim:$PATH" "$bin" build "$work/logged" --quiet

# 2. The reference: the logged command lines (less the version checks), each clip's in the order
# gallerygen ran them, as many clips at once as cores.
cat >"$work/replay.py" <<'PY'
import json, subprocess, sys
from concurrent.futures import ThreadPoolExecutor
groups = {}
for line in open(sys.argv[1]):
    command = json.loads(line)
    if "-version" in command:
        continue
    source = command[command.index("-i") + 1] if "-i" in command else command[-1]
    groups.setdefault(source, []).append(command)
def run(commands):
    for command in commands:
        subprocess.run(command, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
with ThreadPoolExecutor(int(sys.argv[2])) as pool:
    list(pool.map(run, groups.values()))
print(f"{sum(len(g) for g in groups.values())} commands for {len(groups)} clips")
PY
measure reference python3 "$work/replay.py" "$work/commands.jsonl" "$jobs"

# 3-4. gallerygen: cold, then no change.
site "$work/site"
measure cold "$bin" build "$work/site" --report "$work/cold.json"
measure no-change "$bin" build "$work/site" --report "$work/no-change.json"

echo
footage=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["counts"]["footage_seconds"])' "$work/cold.json")
echo "gallerygen video benchmark: $count clips of ${seconds}s (1920x1080 and 1080x1920 H.264 + AAC), heights [720], $jobs cores; $(cat "$work/reference.log")"
printf '%-10s %8s %-20s %10s %6s %6s %6s %10s %10s\n' scenario wall_s vs_reference max_rss_MB cpu_% 200s 304s processed footage_s
ref_wall=$(echo "${results[0]}" | cut -d' ' -f2)
for row in "${results[@]}"; do
  read -r name wall rss user sys ok nm <<<"$row"
  if [ "$name" = reference ]; then processed=-; done_s=-; else
    processed=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["counts"]["processed"])' "$work/$name.json")
    done_s=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["counts"]["footage_seconds"])' "$work/$name.json"); fi
  awk -v n="$name" -v w="$wall" -v r="$rss" -v u="$user" -v s="$sys" -v ok="$ok" -v nm="$nm" -v ref="$ref_wall" \
      -v p="$processed" -v f="$done_s" 'BEGIN {
    ratio = (n == "reference") ? "1.00" : sprintf("%.3f (%+.1f%%)", w / ref, 100 * (w - ref) / ref);
    printf "%-10s %8.2f %-20s %10.0f %6.0f %6d %6d %10s %10s\n", n, w, ratio, r / 1024, 100 * (u + s) / (w > 0 ? w : 1), ok, nm, p, f }'
done
echo "cold transcoded ${footage}s of footage; reports: $work/{cold,no-change}.json"
