#!/usr/bin/env python3
"""Make a benchmark corpus of camera-sized real photos and a JSONPlaceholder feed naming them.

    make-corpus.py OUT [--count 200] [--size 4000x3000] [--dup-ratio 0.1] [--base-url URL] [--jobs N]
                       [--distinct N]

Every photo is a crop of one of the nature photographs in Debian's mate-backgrounds package
(fetched once with `apt-get download` into ~/.cache/gallerygen-bench), scaled to SIZE and tinted
its own way, so each file has its own bytes. A share of the feed's entries (--dup-ratio) repeat
an earlier URL, as real feeds do. With --distinct N, photos past the Nth are hard links to the
first N (a large feed of distinct URLs without a large corpus to make). Needs the `vips` command (libvips-tools). Deterministic; photos
already made are kept.
"""
import argparse
import json
import os
import random
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor

CACHE = os.path.expanduser("~/.cache/gallerygen-bench")
NATURE = "usr/share/backgrounds/mate/nature"


def source_photos():
    folder = os.path.join(CACHE, NATURE)
    if not os.path.isdir(folder):
        os.makedirs(CACHE, exist_ok=True)
        with tempfile.TemporaryDirectory() as tmp:
            subprocess.run(["apt-get", "download", "mate-backgrounds"], cwd=tmp, check=True, stdout=subprocess.DEVNULL)
            package = next(f for f in os.listdir(tmp) if f.endswith(".deb"))
            subprocess.run(["dpkg", "-x", os.path.join(tmp, package), CACHE], check=True)
    return sorted(os.path.join(folder, f) for f in os.listdir(folder) if f.endswith(".jpg"))


def run(*command):
    subprocess.run(command, check=True, stdout=subprocess.DEVNULL)


def make_base(job):
    """One scaled, cropped base image per (source, variant), kept as a .v file."""
    source, variant, width, height, out = job
    rng = random.Random(f"{source}-{variant}")
    crop = ["centre", "attention", "entropy", "low", "high"][variant % 5]
    zoom = 1.0 + 0.3 * rng.random()
    run("vips", "thumbnail", source, out, str(int(width * zoom)), "--height", str(int(height * zoom)), "--crop", crop,
        "--size", "both")
    with tempfile.NamedTemporaryFile(suffix=".v", dir=os.path.dirname(out), delete=False) as handle:
        cropped = handle.name
    scaled_w, scaled_h = int(width * zoom), int(height * zoom)
    left, top = rng.randint(0, scaled_w - width), rng.randint(0, scaled_h - height)
    run("vips", "crop", out, cropped, str(left), str(top), str(width), str(height))
    os.replace(cropped, out)


def make_photo(job):
    index, base, out = job
    rng = random.Random(index)
    tint = " ".join(f"{0.85 + 0.3 * rng.random():.3f}" for _ in range(3))
    temporary = out + ".part.jpg"
    run("vips", "linear", base, temporary + "[Q=88]", tint, "0 0 0", "--uchar")
    os.replace(temporary, out)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("out")
    parser.add_argument("--count", type=int, default=200)
    parser.add_argument("--size", default="4000x3000")
    parser.add_argument("--dup-ratio", type=float, default=0.1)
    parser.add_argument("--base-url", default="http://127.0.0.1:8089")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 2)
    parser.add_argument("--distinct", type=int, default=0)
    options = parser.parse_args()
    width, height = (int(v) for v in options.size.lower().split("x"))
    sources = source_photos()
    if not sources:
        sys.exit("make-corpus: no photos in mate-backgrounds")
    photos = os.path.join(options.out, "photos")
    bases = os.path.join(options.out, ".bases-" + options.size)
    os.makedirs(photos, exist_ok=True)
    os.makedirs(bases, exist_ok=True)
    variants_per_source = 8
    base_jobs, photo_jobs = {}, []
    distinct = options.distinct if options.distinct > 0 else options.count
    for index in range(1, options.count + 1):
        out = os.path.join(photos, f"{index:05d}.jpg")
        if os.path.exists(out) or index > distinct:
            continue
        source = (index - 1) % len(sources)
        variant = ((index - 1) // len(sources)) % variants_per_source
        base = os.path.join(bases, f"{source}-{variant}.v")
        if not os.path.exists(base):
            base_jobs[base] = (sources[source], variant, width, height, base)
        photo_jobs.append((index, base, out))
    with ThreadPoolExecutor(max_workers=options.jobs) as pool:
        list(pool.map(make_base, base_jobs.values()))
        for done, _ in enumerate(pool.map(make_photo, photo_jobs), 1):
            if done % 100 == 0:
                print(f"make-corpus: {done}/{len(photo_jobs)} photos", file=sys.stderr)
    for index in range(distinct + 1, options.count + 1):
        out = os.path.join(photos, f"{index:05d}.jpg")
        if not os.path.exists(out):
            os.link(os.path.join(photos, f"{(index - 1) % distinct + 1:05d}.jpg"), out)
    rng = random.Random(options.count)
    base_url = options.base_url.rstrip("/")
    feed = []
    for index in range(1, options.count + 1):
        number = index
        if index > 10 and rng.random() < options.dup_ratio:
            number = rng.randint(1, index - 1)
        url = f"{base_url}/photos/{number:05d}.jpg"
        feed.append({"albumId": (index - 1) // 50 + 1, "id": index, "title": f"Photo {index} <b>&amp; friends",
                     "url": url, "thumbnailUrl": url})
    with open(os.path.join(options.out, "feed.json"), "w") as handle:
        json.dump(feed, handle, indent=1)
    unique = len({entry["url"] for entry in feed})
    print(f"make-corpus: {options.count} entries, {unique} distinct URLs in {options.out}")


if __name__ == "__main__":
    main()
