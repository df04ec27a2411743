#!/usr/bin/env bash
# Runs bench/vips-threads.c in its three modes (see its header): shows whether this machine's
# libvips + liborc crash when threads build and release Orc programs at once, and that
# gallerygen's guard (building and releasing under one lock) avoids it.
# THREADS (default 4) and SECONDS_PER_MODE (default 150) bound the run.
set -euo pipefail
cd "$(dirname "$0")/.."
work=bench-work/vips-threads
mkdir -p "$work"
threads=${THREADS:-4}
limit=${SECONDS_PER_MODE:-150}
gcc -O2 -Wall -o "$work/vips-threads" bench/vips-threads.c $(pkg-config --cflags --libs vips) -lpthread
if [ ! -f "$work/photo.jpg" ]; then
  vips gaussnoise "$work/noise.v" 640 480 --mean 128 --sigma 40
  vips bandjoin "$work/noise.v $work/noise.v $work/noise.v" "$work/photo.jpg[Q=85]"
  rm -f "$work/noise.v"
fi
echo "libvips $(pkg-config --modversion vips), liborc $(pkg-config --modversion orc-0.4 2>/dev/null || echo '?'), $threads threads, at most ${limit} s per mode"
for mode in unguarded guarded novector; do
  SECONDS=0
  set +e
  ITERATIONS=${ITERATIONS:-100000} timeout --signal=TERM "$limit" "$work/vips-threads" "$work/photo.jpg" "$threads" "$mode" >/dev/null 2>"$work/$mode.log"
  status=$?
  set -e
  seconds=$SECONDS
  last=$(tail -1 "$work/$mode.log" 2>/dev/null || true)
  case $status in
    124) verdict="no crash in ${limit} s" ;;
    134) verdict="CRASHED (SIGABRT: $last) after ${seconds} s" ;;
    139) verdict="CRASHED (SIGSEGV) after ${seconds} s" ;;
    0) verdict="finished without a crash in ${seconds} s" ;;
    *) verdict="exit $status after ${seconds} s: $last" ;;
  esac
  printf '%-10s %s\n' "$mode" "$verdict"
done
