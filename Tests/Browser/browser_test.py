#!/usr/bin/env python3
"""gallerygen in a real browser: headless Chromium against `gallerygen serve`.

Builds a gallery of 200 photos (distinct PNGs made here), serves it with `gallerygen serve -v`
(which logs every request it answers), opens it in a 1280x800 window and checks, counting image
requests at the server:

1. before any scrolling, only the first rows' images are requested (lazy loading works);
2. every image has its final box before it loads (no layout shift), and no tile moves when the
   page arrives in two parts with a pause between (the browser draws the rows it has, and a photo
   of the first rows is painted before the rest arrives);
3. scrolling to the end loads every image;
4. an edit to index.md reloads the page by itself (live reload).

    browser_test.py GALLERYGEN_BINARY
Prints one line per check and `N passed, N failed`; exits 1 if any check failed.
"""
import http.server
import json
import os
import re
import signal
import struct
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request
import zlib

from selenium import webdriver
from selenium.webdriver.chrome.service import Service

COUNT = 200
results = []


def check(name, condition, detail=""):
    results.append(bool(condition))
    print(("PASS " if condition else "FAIL ") + name + (f" ({detail})" if detail else ""), flush=True)


def png(path, width, height, seed):
    """A small PNG with its own colours: a gradient and a block placed by `seed`."""
    r, g, b = (seed * 37) % 256, (seed * 91) % 256, (seed * 53) % 256
    rows = []
    for y in range(height):
        row = bytearray([0])
        for x in range(width):
            inside = (seed * 7) % (width - 40) <= x < (seed * 7) % (width - 40) + 40 and 20 <= y < 60
            row += bytes((255, 255, 255)) if inside else bytes(((r + x) % 256, (g + y) % 256, b))
        rows.append(bytes(row))
    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)
    data = b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0))
    data += chunk(b"IDAT", zlib.compress(b"".join(rows), 6)) + chunk(b"IEND", b"")
    with open(path, "wb") as handle:
        handle.write(data)


def make_site(folder):
    os.makedirs(os.path.join(folder, "photos"))
    feed = []
    for index in range(1, COUNT + 1):
        png(os.path.join(folder, "photos", f"{index:03d}.png"), 400, 300, index)
        feed.append({"title": f"Photo {index}", "imageUrl": f"photos/{index:03d}.png"})
    with open(os.path.join(folder, "feed.json"), "w") as handle:
        json.dump(feed, handle)
    with open(os.path.join(folder, "gallery.yml"), "w") as handle:
        handle.write("title: Browser test\nfeed: feed.json\nimages:\n  widths: [320, 640]\npage_size: 200\n")
    with open(os.path.join(folder, "index.md"), "w") as handle:
        handle.write("A gallery of two hundred photos.\n")


class Server:
    """`gallerygen serve -v` on a free port, its request log collected as it runs."""

    def __init__(self, binary, site):
        self.process = subprocess.Popen([binary, "serve", site, "--port", "0", "-v"], stdout=subprocess.PIPE,
                                        stderr=subprocess.PIPE, text=True)
        line = self.process.stdout.readline()
        match = re.search(r"http://127\.0\.0\.1:(\d+)/", line)
        if not match:
            raise SystemExit(f"gallerygen serve did not start: {line}{self.process.stderr.read()}")
        self.url = match.group(0)
        self.lines = []
        self.lock = threading.Lock()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self):
        for line in self.process.stderr:
            with self.lock:
                self.lines.append(line.rstrip("\n"))

    def image_requests(self):
        with self.lock:
            return [line.split()[1] for line in self.lines if line.startswith("GET /images/")]

    def log(self):
        with self.lock:
            return list(self.lines)

    def stop(self):
        self.process.send_signal(signal.SIGINT)
        return self.process.wait(timeout=15)


class StallingProxy:
    """Passes requests on to `gallerygen serve`, but sends the gallery page in two parts: up to the
    end of a tile (the 60th of its 200), then, after a pause, the rest. A browser draws what it has parsed while
    it waits, as it does when a page arrives slowly over a real network."""

    def __init__(self, upstream, tiles_before_pause=5, pause=1.5):
        class Handler(http.server.BaseHTTPRequestHandler):
            def log_message(self, *arguments):
                pass

            def do_GET(self):
                if self.path.startswith("/__gallerygen/"):  # live reload's endpoint: not needed here
                    self.send_error(404)
                    return
                try:
                    with urllib.request.urlopen(upstream.rstrip("/") + self.path) as answer:
                        status, kind, body = answer.status, answer.headers.get("Content-Type"), answer.read()
                except urllib.error.HTTPError as error:
                    status, kind, body = error.code, error.headers.get("Content-Type"), error.read()
                self.send_response(status)
                if kind:
                    self.send_header("Content-Type", kind)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                cut = 0
                if self.path in ("/", "/index.html"):
                    for _ in range(tiles_before_pause):
                        cut = body.index(b"</li>", cut) + len(b"</li>")
                try:
                    self.wfile.write(body[:cut])
                    self.wfile.flush()
                    if cut:
                        time.sleep(pause)
                    self.wfile.write(body[cut:])
                except (BrokenPipeError, ConnectionResetError):
                    pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def stop(self):
        self.server.shutdown()
        self.server.server_close()


def wait_until(condition, timeout=20):
    deadline = time.time() + timeout
    while time.time() < deadline:
        if condition():
            return True
        time.sleep(0.1)
    return False


def main():
    binary = os.path.abspath(sys.argv[1])
    with tempfile.TemporaryDirectory() as folder:
        make_site(folder)
        server = Server(binary, folder)
        options = webdriver.ChromeOptions()
        for argument in ["--headless=new", "--no-sandbox", "--disable-gpu", "--window-size=1280,800",
                         "--disable-dev-shm-usage", "--force-device-scale-factor=1"]:
            options.add_argument(argument)
        options.binary_location = "/usr/bin/chromium"
        driver = webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)
        try:
            # Record layout shifts from the very start of the page's life.
            driver.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": """
                window.__shifts = [];
                window.__shiftSources = [];
                new PerformanceObserver(list => { for (const entry of list.getEntries()) {
                    if (entry.hadRecentInput) continue;
                    window.__shifts.push(entry.value);
                    for (const source of entry.sources || []) {
                      const node = source.node;
                      const name = node ? (node.nodeName + (node.className ? "." + node.className : "")
                        + (node.textContent ? " '" + node.textContent.trim().slice(0, 30) + "'" : "")) : "?";
                      const inGallery = !!(node && node.closest && node.closest(".gallery"));
                      window.__shiftSources.push({inGallery: inGallery, text: name + " "
                        + JSON.stringify(source.previousRect) + " -> " + JSON.stringify(source.currentRect)
                        + " at " + Math.round(entry.startTime) + "ms"});
                    }
                  } })
                  .observe({type: "layout-shift", buffered: true});
                window.__boxes = null;
                // Tiles out of sight are not laid out (content-visibility: their room is an
                // estimate until first drawn); for the measure every tile is laid out, so that
                // each image's box is where the page puts it, whatever has been scrolled past.
                window.__documentBoxes = () => {
                  const tiles = Array.from(document.querySelectorAll(".gallery .photo"));
                  tiles.forEach(tile => tile.style.contentVisibility = "visible");
                  const boxes = Array.from(document.querySelectorAll(".gallery img")).map(img => {
                    const r = img.getBoundingClientRect();
                    return [r.left + window.scrollX, r.top + window.scrollY, r.width, r.height];
                  });
                  tiles.forEach(tile => tile.style.contentVisibility = "");
                  return boxes;
                };
                document.addEventListener("DOMContentLoaded", () => {
                  window.__boxes = Array.from(document.querySelectorAll(".gallery img"))
                    .map(img => [img.complete, img.getBoundingClientRect().height]);
                  window.__initialBoxes = window.__documentBoxes();
                });"""})
            driver.get(server.url)
            wait_until(lambda: driver.execute_script("return document.readyState") == "complete")
            time.sleep(1.5)
            order = driver.execute_script(
                "return Array.from(document.querySelectorAll('.gallery img')).map(i => i.currentSrc || i.src)")
            order = ["/" + url.split("/", 3)[3] for url in order]
            early = server.image_requests()
            check("the page lists every photo", len(order) == COUNT, f"{len(order)} tiles")
            first_row_count = driver.execute_script("""
                const tiles = Array.from(document.querySelectorAll('.gallery li'));
                const top = tiles[0].getBoundingClientRect().top;
                return tiles.filter(t => t.getBoundingClientRect().top === top).length;""")
            visible_rows = driver.execute_script("""
                const tiles = Array.from(document.querySelectorAll('.gallery li'));
                return tiles.filter(t => t.getBoundingClientRect().top < window.innerHeight).length;""")
            check("before scrolling, only the first rows are requested",
                  0 < len(early) <= COUNT // 4 and sorted(early) == sorted(order[:len(early)]),
                  f"{len(early)} of {COUNT} images requested; {visible_rows} tiles in the viewport, "
                  f"{first_row_count} per row")
            check("the first row is requested", set(order[:first_row_count]) <= set(early))
            boxes = driver.execute_script("return window.__boxes") or []
            unloaded = [height for complete, height in boxes if not complete]
            check("every image has its box before it loads",
                  len(boxes) == COUNT and all(height > 50 for _, height in boxes),
                  f"{len(unloaded)} images not yet loaded at DOMContentLoaded, smallest box "
                  f"{min(h for _, h in boxes) if boxes else 0:.0f}px")

            # To the end, as a visitor scrolls: the page's height grows as tiles out of sight are
            # first laid out, so it is read again at each step.
            y = 0
            while y < driver.execute_script("return document.body.scrollHeight") + 800:
                driver.execute_script(f"window.scrollTo(0, {y})")
                time.sleep(0.05)
                y += 400
            loaded = wait_until(lambda: driver.execute_script(
                "return Array.from(document.querySelectorAll('.gallery img')).every(i => i.complete && i.naturalWidth > 0)"))
            requested = set(server.image_requests())
            # Each image as the browser chose it from its srcset, now that all have loaded.
            final_order = ["/" + url.split("/", 3)[3] for url in driver.execute_script(
                "return Array.from(document.querySelectorAll('.gallery img')).map(i => i.currentSrc)")]
            check("scrolling to the end loads every image", loaded and set(final_order) <= requested,
                  f"{len(requested & set(final_order))} of {COUNT} requested")
            initial = driver.execute_script("return window.__initialBoxes") or []
            final = driver.execute_script("return window.__documentBoxes()")
            moved = [i for i, (a, b) in enumerate(zip(initial, final)) if any(abs(x - y) > 0.5 for x, y in zip(a, b))]
            check("every image keeps the box it had before loading", len(initial) == COUNT and not moved,
                  f"{len(moved)} of {len(initial)} image boxes changed" + (f", first: {moved[:5]}" if moved else ""))
            shifts = driver.execute_script("return window.__shifts")
            sources = driver.execute_script("return window.__shiftSources") or []
            gallery_shifts = [source["text"] for source in sources if source["inGallery"]]
            other = [source["text"] for source in sources if not source["inGallery"]]
            # A shift with no node to name is the gallery's own filler (its ::after) or another
            # pseudo-element: it counts as well.
            check("no layout shift of the gallery while images load",
                  not gallery_shifts and sum(shifts) < 0.001,
                  f"cumulative layout shift {sum(shifts):.4f}"
                  + (f"; gallery elements moved: {' | '.join(gallery_shifts[:5])}" if gallery_shifts else "")
                  + (f"; other shifts (not the gallery): {' | '.join(other[:5])}" if other else ""))

            # The same page again, arriving in two parts: the rows drawn while the rest is on its
            # way must be the rows of the finished page (a last row short of tiles would widen).
            # A window 4,000 pixels tall holds the 15 rows the first part fills: a row drawn short
            # of tiles there that widened later would move in sight (CLS counts only that).
            proxy = StallingProxy(server.url, tiles_before_pause=60)
            driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {
                "width": 1280, "height": 4000, "deviceScaleFactor": 1, "mobile": False})
            try:
                driver.get(proxy.url)
                wait_until(lambda: driver.execute_script("return document.readyState") == "complete")
                time.sleep(0.5)
                paints = driver.execute_script(
                    "return performance.getEntriesByType('paint').map(entry => entry.startTime)")
                arrived = driver.execute_script(
                    "return performance.getEntriesByType('navigation')[0].responseEnd")
                shifts = driver.execute_script("return window.__shifts")
                sources = driver.execute_script("return window.__shiftSources") or []
                # The largest images painted, and when: a tile of the first rows is one of them.
                painted = driver.execute_async_script(
                    "const done = arguments[0]; new PerformanceObserver(list => done(list.getEntries().map("
                    "entry => [entry.startTime, entry.element ? entry.element.tagName : ''])))"
                    ".observe({type: 'largest-contentful-paint', buffered: true});")
            finally:
                proxy.stop()
                driver.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})
            early = [time for time, tag in painted if tag == "IMG" and time < arrived]
            check("rows are shown as they arrive: a photo is painted before the page has all arrived",
                  bool(early), f"image paints at {[round(t) for t, tag in painted if tag == 'IMG']} ms, "
                  f"page complete at {arrived:.0f} ms")
            check("no layout shift when the page arrives in two parts",
                  paints and min(paints) < arrived and sum(shifts) < 0.001,
                  f"first paint at {min(paints) if paints else 0:.0f} ms, page complete at {arrived:.0f} ms; "
                  f"cumulative layout shift {sum(shifts):.4f}"
                  + (f"; moved: {' | '.join(source['text'] for source in sources[:3])}" if sources else ""))
            driver.get(server.url)
            wait_until(lambda: driver.execute_script("return document.readyState") == "complete")

            driver.execute_script("window.__marker = 'before'")
            with open(os.path.join(folder, "index.md"), "a") as handle:
                handle.write("\nEdited while the page was open.\n")
            reloaded = wait_until(lambda: driver.execute_script("return window.__marker") is None
                                  and "Edited while the page was open." in driver.page_source)
            check("an edit to index.md reloads the page by itself", reloaded)
        finally:
            driver.quit()
            status = server.stop()
        check("Ctrl-C stops gallerygen serve with exit 0", status == 0, f"exit {status}")
    passed = sum(results)
    failed = len(results) - passed
    print(f"{passed} passed, {failed} failed")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
