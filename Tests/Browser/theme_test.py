#!/usr/bin/env python3
"""The default theme in a real browser: justified rows, the viewer, photo pages, accessibility.

Builds a gallery of 30 real photos of every shape (landscape, upright, a panorama, a PNG with
transparency) from the sample site's photos, serves the output with a small static server of
its own that can hold back image bodies and records, per request, whether the browser took it
whole or hung up, and checks in headless Chromium:

1. rows fill the width within a pixel and keep each photo's aspect ratio, at 390, 1280 and 2560
   pixels wide;
2. no layout shift on the grid, nor in the viewer while its photo loads;
3. a click opens the viewer; 20 presses of the right arrow walk 20 photos, each shown sharp at
   the right width, the address bar following; it zooms by keys, button, wheel and double click,
   pans by dragging and fetches a larger rendition when zoomed past the shown one; the sharp image
   replaces the tile's at the size it had from the first frame; Escape closes it and gives focus
   back to the tile;
4. the back button closes the viewer; a deep link to a photo page works with and without
   JavaScript;
5. flicking through 10 photos served slowly cancels the skipped photos' transfers (counted at the
   server) and the last photo does not wait for them;
6. the transparent PNG's tile shows the page background through its transparent corners (light
   and dark);
7. the viewer shows a photo's caption, read from its page once the photo is in; an album page shows the way up, the album inside it with its cover and its own photos; the
   keyword read from a photo's XMP has its page;
8. a photo page shows the photo whole with its neighbours and the way back on one line above it
   at 1280x800 and 390x844, Escape leads back to its tile, it prints without its links, and a
   grid page's first Tab reaches a skip link;
   a photo page and the viewer offer the photo's original for download under its file name, and
   an album page a zip of the album (`downloads: original`), each fetched whole;
9. axe-core finds no serious or critical violation on the grid, a photo page (one of them with a
   caption, keywords and a licence read from the photo's XMP), the open viewer, an album page
   with an album inside it, a keyword page and the keywords page;
10. built in Arabic and in Japanese (`language:`), the page says its language and direction, the
   viewer's labels and counter are in it (Arabic-Indic digits), right to left the first tile is at
   the right, the previous button right of the next one and the left arrow key goes to the next
   photo, and axe-core finds nothing serious or critical on the grid, viewer and a photo page;
11. clips (made with ffmpeg): their tiles show a play mark and the length, nothing of a clip is
   fetched before it is opened, the viewer plays it in place (the browser's format: WebM first),
   moving on stops it and hangs up its transfer, its page has `<video preload="none">` that fetches
   nothing until asked, and axe-core finds nothing serious or critical on any of them;
12. photos behind a content warning: a blurred preview and the warning in the photo's own box,
   nothing of the photo fetched or its title shown until a click (with or without JavaScript),
   the viewer walking the other photos alone, axe-core clean shown or not.

    theme_test.py GALLERYGEN_BINARY SAMPLE_PHOTOS_FOLDER [SCREENSHOT_FOLDER]
With SCREENSHOT_FOLDER, saves the screenshots docs/themes.md and the README show there: the grid,
the viewer, a photo page and an album page at 1280x800, and the grid, a photo page and the viewer
at 390x844 and in dark mode at 1280x800, and the grid and the viewer in Arabic at 1280x800.
Prints one line per check and `N passed, N failed`; exits 1 if any check failed.
"""
import base64
import http.server
import json
import os
import re
import select
import shutil
import socket
import struct
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse
import zlib

from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.actions import interaction
from selenium.webdriver.common.actions.action_builder import ActionBuilder
from selenium.webdriver.common.keys import Keys

results = []


def check(name, condition, detail=""):
    results.append(bool(condition))
    print(("PASS " if condition else "FAIL ") + name + (f" ({detail})" if detail else ""), flush=True)


def wait_until(condition, timeout=20, step=0.05):
    deadline = time.time() + timeout
    while time.time() < deadline:
        try:
            if condition():
                return True
        except Exception:  # a page in the middle of navigating
            pass
        time.sleep(step)
    return False


# ---- the site ----

def make_site(folder, photos):
    """30 photos: the sample's 18 and tinted copies of the first 12 (each its own bytes)."""
    os.makedirs(os.path.join(folder, "photos"))
    names = sorted(name for name in os.listdir(photos) if name.endswith((".jpg", ".png")))
    feed = []
    for index, name in enumerate(names):
        shutil.copy(os.path.join(photos, name), os.path.join(folder, "photos", name))
        feed.append((name, name.rsplit(".", 1)[0].replace("-", " ")))
    for index, name in enumerate([n for n in names if n.endswith(".jpg")][:12]):
        copy = f"tinted-{name}"
        subprocess.run(["vips", "linear", os.path.join(photos, name), os.path.join(folder, "photos", copy),
                        "0.85", str(10 + index * 3)], check=True)
        feed.append((copy, f"tinted {name.rsplit('.', 1)[0].replace('-', ' ')}"))
    # Shapes mixed, as a real gallery has them; the transparent one in the first row.
    feed.sort(key=lambda entry: (entry[0] != "yellow-flower-round.png", entry[0][::-1]))
    # Albums inside albums: a third in Garden / Flowers, a third in Garden itself, a third in Weather.
    albums = ["Garden / Flowers", "Garden", "Weather"]
    entries = [{"id": str(i + 1), "title": title.capitalize(), "imageUrl": f"photos/{name}",
                "album": albums[i * 3 // len(feed)]}
               for i, (name, title) in enumerate(feed)]
    with open(os.path.join(folder, "feed.json"), "w") as handle:
        json.dump(entries, handle)
    with open(os.path.join(folder, "gallery.yml"), "w") as handle:
        handle.write("title: Theme test\nfeed: feed.json\nbase_url: https://photos.example.org/\n"
                     "downloads: original\n")
    return len(entries)


class Recorder:
    """What the server saw of each request: path, Sec-Fetch-Dest, and how it ended."""

    def __init__(self):
        self.lock = threading.Lock()
        self.entries = []
        self.delay = 0.0

    def add(self, entry):
        with self.lock:
            self.entries.append(entry)

    def viewer_requests(self):
        with self.lock:
            return [dict(e) for e in self.entries if e["dest"] == "empty" and e["path"].startswith("/images/")]

    def clear(self):
        with self.lock:
            self.entries = []


def serve(root, recorder):
    class Handler(http.server.SimpleHTTPRequestHandler):
        def __init__(self, *args, **kwargs):
            super().__init__(*args, directory=root, **kwargs)

        def log_message(self, *args):
            pass

        def client_gone(self):
            readable, _, _ = select.select([self.connection], [], [], 0)
            if not readable:
                return False
            try:
                return self.connection.recv(1, socket.MSG_PEEK) == b""
            except OSError:
                return True

        def do_GET(self):
            path = urllib.parse.urlparse(self.path).path
            entry = {"path": path, "dest": self.headers.get("Sec-Fetch-Dest", ""), "outcome": "started",
                     "start": time.time()}
            recorder.add(entry)
            if path.startswith("/images/") and entry["dest"] in ("empty", "video") and recorder.delay:
                # The viewer's fetches are held back; a browser that gives up closes the socket.
                deadline = time.time() + recorder.delay
                while time.time() < deadline:
                    if self.client_gone():
                        entry["outcome"] = "aborted"
                        self.close_connection = True
                        return
                    time.sleep(0.02)
            file = os.path.join(root, path.lstrip("/"))
            if path.endswith("/"):
                file = os.path.join(file, "index.html")
            if not os.path.isfile(file):
                self.send_error(404)
                entry["outcome"] = "404"
                return
            with open(file, "rb") as handle:
                body = handle.read()
            kind = self.guess_type(file)
            try:
                self.send_response(200)
                self.send_header("Content-Type", kind)
                self.send_header("Content-Length", str(len(body)))
                self.send_header("Cache-Control", "no-store")
                self.end_headers()
                for offset in range(0, len(body), 16384):
                    self.wfile.write(body[offset:offset + 16384])
                entry["outcome"] = "completed"
                entry["end"] = time.time()
            except (BrokenPipeError, ConnectionResetError):
                entry["outcome"] = "aborted"
                self.close_connection = True

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, f"http://127.0.0.1:{server.server_address[1]}/"


# ---- pixels ----

def decode_png(data):
    """RGB(A) 8-bit, non-interlaced PNG (what Chromium's screenshots are) -> (width, height, rows)."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    offset, idat, width, height, kind = 8, b"", 0, 0, 0
    while offset < len(data):
        length, = struct.unpack(">I", data[offset:offset + 4])
        name = data[offset + 4:offset + 8]
        body = data[offset + 8:offset + 8 + length]
        if name == b"IHDR":
            width, height, depth, kind = struct.unpack(">IIBB", body[:10])
            assert depth == 8 and kind in (2, 6) and body[12] == 0
        elif name == b"IDAT":
            idat += body
        offset += 12 + length
    channels = 4 if kind == 6 else 3
    raw = zlib.decompress(idat)
    stride = width * channels
    rows, previous = [], bytearray(stride)
    for y in range(height):
        kind_byte = raw[y * (stride + 1)]
        line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for x in range(stride):
            a = line[x - channels] if x >= channels else 0
            b = previous[x]
            c = previous[x - channels] if x >= channels else 0
            if kind_byte == 1:
                line[x] = (line[x] + a) & 255
            elif kind_byte == 2:
                line[x] = (line[x] + b) & 255
            elif kind_byte == 3:
                line[x] = (line[x] + (a + b) // 2) & 255
            elif kind_byte == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[x] = (line[x] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append([tuple(line[i:i + 3]) for i in range(0, stride, channels)])
        previous = line
    return width, height, rows


def pixels(driver, rect):
    shot = driver.execute_cdp_cmd("Page.captureScreenshot", {"format": "png", "clip": {
        "x": rect["x"], "y": rect["y"], "width": rect["width"], "height": rect["height"], "scale": 1}})
    return decode_png(base64.b64decode(shot["data"]))


# ---- the browser ----

SHIFTS = """
window.__shifts = [];
new PerformanceObserver(list => { for (const entry of list.getEntries()) {
  if (!entry.hadRecentInput) window.__shifts.push({value: entry.value, at: Math.round(entry.startTime),
    nodes: (entry.sources || []).map(s => (s.node ? s.node.nodeName + "." + (s.node.className || "") : "?") + JSON.stringify([s.previousRect.x, s.previousRect.y, s.previousRect.width, s.currentRect.x, s.currentRect.y, s.currentRect.width]))});
} }).observe({type: "layout-shift", buffered: true});
"""


def browser(width=1280, height=800, javascript=True, dark=False):
    options = webdriver.ChromeOptions()
    for argument in ["--headless=new", "--no-sandbox", "--disable-gpu", f"--window-size={width},{height}",
                     "--disable-dev-shm-usage", "--force-device-scale-factor=1", "--hide-scrollbars"]:
        options.add_argument(argument)
    if not javascript:
        options.add_experimental_option("prefs", {"profile.managed_default_content_settings.javascript": 2})
    options.binary_location = "/usr/bin/chromium"
    driver = webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)
    driver.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": SHIFTS})
    size(driver, width, height)
    if dark:
        driver.execute_cdp_cmd("Emulation.setEmulatedMedia",
                               {"features": [{"name": "prefers-color-scheme", "value": "dark"}]})
    return driver


def size(driver, width, height):
    driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {
        "width": width, "height": height, "deviceScaleFactor": 1, "mobile": False})
    driver.get("about:blank")


def slug_of(page):
    """`http://.../photos/dune-3.html` -> `dune-3`: the page's name, and its tile's id."""
    return page.rsplit("/", 1)[1][:-len(".html")]


def tile_renditions(driver, slug):
    """{path from the site's root: width} of the tile `slug`'s srcset."""
    srcset = driver.execute_script(
        "return document.getElementById(arguments[0]).querySelector('img').getAttribute('srcset')", slug)
    return {part.split()[0]: int(part.split()[1][:-1]) for part in srcset.split(",")}


def open_page(driver, url):
    driver.get(url)
    wait_until(lambda: driver.execute_script("return document.readyState") == "complete")
    # A grid page starts its viewer after the load event (assets/start.js): wait for it.
    wait_until(lambda: driver.execute_script(
        "return !document.querySelector('script[src$=\"start.js\"]') || !!document.querySelector('dialog.viewer')"
        " || !document.querySelector('.gallery a[data-full]')"), timeout=10)


ROWS = """
const gallery = document.querySelector('.gallery');
const width = gallery.getBoundingClientRect().width;
const gap = parseFloat(getComputedStyle(gallery).columnGap) || 0;
const rows = [];
for (const tile of gallery.querySelectorAll('li.photo')) {
  const img = tile.querySelector('img');
  const box = img.getBoundingClientRect();
  const row = rows.find(r => Math.abs(r.top - box.top) < 1);
  const entry = {left: box.left, width: box.width, height: box.height,
                 aspect: parseFloat(getComputedStyle(tile).getPropertyValue('--ar'))};
  if (row) row.tiles.push(entry); else rows.push({top: box.top, tiles: [entry]});
}
return {width: width, gap: gap, left: gallery.getBoundingClientRect().left, rows: rows};
"""


def check_rows(driver, label):
    layout = driver.execute_script(ROWS)
    full = layout["rows"][:-1]  # the last row keeps its natural size
    worst_fill, worst_ratio = 0.0, 0.0
    for row in full:
        tiles = row["tiles"]
        used = sum(t["width"] for t in tiles) + layout["gap"] * (len(tiles) - 1)
        worst_fill = max(worst_fill, abs(used - layout["width"]))
        for tile in tiles:
            worst_ratio = max(worst_ratio, abs(tile["width"] - tile["height"] * tile["aspect"]))
    last = layout["rows"][-1]["tiles"]
    counts = [len(r["tiles"]) for r in layout["rows"]]
    check(f"{label}: every full row fills the width within a pixel, each tile at its aspect ratio",
          len(full) >= 2 and worst_fill <= 1.0 and worst_ratio <= 1.0,
          f"{len(layout['rows'])} rows of {counts}, widest miss {worst_fill:.2f}px, "
          f"worst aspect error {worst_ratio:.2f}px, last row {sum(t['width'] for t in last):.0f} "
          f"of {layout['width']:.0f}px")


def main():
    binary = os.path.abspath(sys.argv[1])
    sample = os.path.abspath(sys.argv[2])
    shots = os.path.abspath(sys.argv[3]) if len(sys.argv) > 3 else None
    with tempfile.TemporaryDirectory() as folder:
        count = make_site(folder, sample)
        build = subprocess.run([binary, "build", folder], capture_output=True, text=True)
        if build.returncode != 0:
            raise SystemExit(f"gallerygen build failed: {build.stderr}")
        public = os.path.join(folder, "public")
        recorder = Recorder()
        server, url = serve(public, recorder)
        manifest = json.load(open(os.path.join(public, "gallery-manifest.json")))
        print(f"{count} photos built, served at {url}", flush=True)

        driver = browser()
        try:
            # 1. Rows at three widths.
            for width, height in [(390, 844), (1280, 800), (2560, 1440)]:
                size(driver, width, height)
                open_page(driver, url)
                check_rows(driver, f"{width}px")
            size(driver, 1280, 800)

            # 2. The grid's shifts, from a fresh load to every image in.
            open_page(driver, url)
            # The page's height grows as tiles out of sight are first laid out: read at each step.
            y = 0
            while y < driver.execute_script("return document.body.scrollHeight") + 800:
                driver.execute_script(f"window.scrollTo(0, {y})")
                time.sleep(0.03)
                y += 400
            wait_until(lambda: driver.execute_script(
                "return Array.from(document.querySelectorAll('.gallery img')).every(i => i.complete)"))
            shifts = driver.execute_script("return window.__shifts")
            check("no layout shift on the grid", not shifts,
                  f"CLS {sum(s['value'] for s in shifts):.4f}" + (f": {shifts[:3]}" if shifts else ""))

            # 6. The transparent PNG: its corners show the page, in light and in dark.
            for dark in (False, True):
                driver.execute_cdp_cmd("Emulation.setEmulatedMedia", {"features": [
                    {"name": "prefers-color-scheme", "value": "dark" if dark else "light"}]})
                open_page(driver, url)
                tile = driver.find_element(By.CSS_SELECTOR, '.gallery img[alt="Yellow flower round"]')
                wait_until(lambda: driver.execute_script("return arguments[0].complete", tile))
                rect = driver.execute_script(
                    "const r = arguments[0].getBoundingClientRect(); return {x: r.left, y: r.top, "
                    "width: r.width, height: r.height}", tile)
                background = driver.execute_script(
                    "return getComputedStyle(document.body).backgroundColor")
                expected = tuple(int(v) for v in re.findall(r"\d+", background)[:3])
                width, height, rows = pixels(driver, rect)
                # Just inside each corner (clear of the rounded border), well outside the circle.
                corners = [rows[int(height * 0.06)][int(width * 0.06)], rows[int(height * 0.06)][int(width * 0.94)],
                           rows[int(height * 0.94)][int(width * 0.06)], rows[int(height * 0.94)][int(width * 0.94)]]
                centre = rows[height // 2][width // 2]
                close = all(all(abs(a - b) <= 2 for a, b in zip(pixel, expected)) for pixel in corners)
                check(f"the transparent PNG shows the page behind it ({'dark' if dark else 'light'})",
                      close and any(abs(a - b) > 30 for a, b in zip(centre, expected)),
                      f"page {expected}, corners {corners}, centre {centre}")
            driver.execute_cdp_cmd("Emulation.setEmulatedMedia", {"features": [
                {"name": "prefers-color-scheme", "value": "light"}]})

            if shots:
                os.makedirs(shots, exist_ok=True)
                open_page(driver, url)
                time.sleep(0.5)
                driver.save_screenshot(os.path.join(shots, "grid.png"))

            # 3. The viewer: open, walk 20, Escape.
            open_page(driver, url)
            driver.execute_script("window.__shifts = []")
            links = driver.find_elements(By.CSS_SELECTOR, ".gallery a[data-full]")
            pages = [link.get_attribute("href") for link in links]
            links[0].click()
            opened = wait_until(lambda: driver.execute_script("return document.querySelector('dialog.viewer').open"))
            check("a click on a tile opens the viewer at that photo's address",
                  opened and driver.current_url == pages[0], driver.current_url)
            # The page under the viewer is out of reach: the viewer is modal to assistive technology
            # (a modal dialog, or one raised as a popover that says so) and Tab, forwards or back,
            # never reaches a tile or link under it.
            modal = driver.execute_script(
                "const d = document.querySelector('dialog.viewer');"
                " return d.matches(':modal') || (d.matches(':popover-open') && d.getAttribute('aria-modal') === 'true')")
            reached = set()
            for keys in [Keys.TAB] * 12 + [Keys.SHIFT + Keys.TAB] * 12:
                driver.switch_to.active_element.send_keys(keys)
                reached.add(driver.execute_script(
                    "const e = document.activeElement; return e === document.body ? 'body'"
                    " : e.closest('dialog.viewer') ? 'viewer' : e.outerHTML.slice(0, 80)"))
            driver.execute_script("document.querySelector('dialog.viewer').focus()")
            check("the open viewer is modal: Tab and Shift-Tab go round the viewer's controls only",
                  modal and reached <= {"viewer", "body"} and "viewer" in reached, f"modal {modal}, reached {reached}")
            sharp = 'return document.querySelector(".viewer .stage img.sharp") !== null'
            wait_until(lambda: driver.execute_script(sharp))
            walked, problems, widths = 0, [], {}
            for step in range(1, 21):
                before = driver.execute_script("return document.querySelector('.viewer .position').textContent")
                driver.switch_to.active_element.send_keys(Keys.ARROW_RIGHT)
                expected_page = pages[step % len(pages)] if step < len(pages) else pages[-1]
                if not wait_until(lambda: driver.execute_script(sharp) and driver.current_url == expected_page,
                                  timeout=10):
                    problems.append(f"photo {step + 1}: not shown sharp at {expected_page} ({before})")
                    continue
                state = driver.execute_script("""
                    const img = document.querySelector('.viewer .stage img');
                    const stage = document.querySelector('.viewer .stage').getBoundingClientRect();
                    const box = img.getBoundingClientRect();
                    return {shown: Number(img.dataset.width), box: [box.width, box.height],
                            stage: [stage.width, stage.height], natural: img.naturalWidth};""")
                # The right width: the smallest rendition at least as wide as the photo is drawn.
                available = sorted(tile_renditions(driver, slug_of(expected_page)).values())
                drawn = state["box"][0]
                right = next((w for w in available if w >= drawn - 0.5), available[-1])
                widths[state["shown"]] = widths.get(state["shown"], 0) + 1
                if state["shown"] != right or state["natural"] != right:
                    problems.append(f"photo {step + 1}: {state['shown']}px shown for a {drawn:.0f}px box "
                                    f"(made: {available})")
                walked += 1
            check("the right arrow walks 20 photos, each sharp at the right width, the address following",
                  walked == 20 and not problems,
                  f"{walked} shown; widths used {widths}" + (f"; {problems[:3]}" if problems else ""))
            shifts = driver.execute_script("return window.__shifts")
            check("no layout shift while the viewer's photos load", not shifts,
                  f"CLS {sum(s['value'] for s in shifts):.4f}" + (f": {shifts[:3]}" if shifts else ""))
            axe_results = {}
            axe_results["open viewer"] = axe_scan(driver)
            # Zoom: keys, the button, the wheel, a double click; a drag pans; a larger rendition
            # comes once the photo is drawn wider than the one shown; the next photo is unzoomed.
            state = ("const i = document.querySelector('.viewer .stage img');"
                     " return {t: i.style.transform, w: Number(i.dataset.width),"
                     " pressed: document.querySelector('.viewer .zoom').getAttribute('aria-pressed')}")
            # To a photo with a rendition wider than the one shown: zooming has one to fetch.
            for _ in range(12):
                made = sorted(tile_renditions(driver, slug_of(driver.current_url)).values())
                if driver.execute_script(state)["w"] < made[-1]:
                    break
                page_before = driver.current_url
                driver.switch_to.active_element.send_keys(Keys.ARROW_LEFT)
                wait_until(lambda: driver.current_url != page_before and driver.execute_script(sharp))
            unzoomed = driver.execute_script(state)
            driver.switch_to.active_element.send_keys("+")
            driver.switch_to.active_element.send_keys("+")
            # (The original, once the largest rendition is in, is larger still: its width reads NaN.)
            larger = wait_until(lambda: (driver.execute_script(state)["w"] or float("inf")) > unzoomed["w"], timeout=10)
            zoomed = driver.execute_script(state)
            # Zoomed past the largest rendition: the original, where the site offers it as a JPEG.
            has_original = driver.execute_script(
                "return !!document.querySelector('.viewer .said .download a[href*=\"/originals/\"][href$=\".jpg\"]')")
            for _ in range(4):
                driver.switch_to.active_element.send_keys("+")
            got_original = wait_until(lambda: driver.execute_script(
                "return document.querySelector('.viewer .stage img').dataset.width === 'original'"), timeout=10)
            check("zoomed past the largest rendition, the viewer loads the original offered for download",
                  got_original == has_original and has_original, f"offered: {has_original}")
            for _ in range(4):
                driver.switch_to.active_element.send_keys("-")
            image = driver.find_element(By.CSS_SELECTOR, ".viewer .stage img")
            ActionChains(driver).move_to_element(image).click_and_hold().move_by_offset(-120, -60).release().perform()
            panned = driver.execute_script(state)
            axe_results["zoomed viewer"] = axe_scan(driver)
            driver.switch_to.active_element.send_keys("-")
            driver.switch_to.active_element.send_keys("-")
            back = driver.execute_script(state)
            driver.find_element(By.CSS_SELECTOR, ".viewer .zoom").click()
            by_button = driver.execute_script(state)
            driver.find_element(By.CSS_SELECTOR, ".viewer .zoom").click()
            driver.execute_script(
                "document.querySelector('.viewer .stage').dispatchEvent(new WheelEvent('wheel',"
                " {deltaY: -100, clientX: innerWidth / 2, clientY: innerHeight / 2, bubbles: true, cancelable: true}))")
            by_wheel = driver.execute_script(state)
            ActionChains(driver).double_click(image).perform()
            by_double = driver.execute_script(state)
            current_page = driver.current_url
            driver.switch_to.active_element.send_keys(Keys.ARROW_LEFT)
            wait_until(lambda: driver.current_url != current_page)
            next_photo = driver.execute_script(state)
            check("zoom: + and - keys, the button, the wheel and a double click; a drag pans; a larger rendition"
                  " past the shown one's width; the next photo unzoomed",
                  "scale(2.25)" in zoomed["t"] and larger and zoomed["pressed"] == "true"
                  and panned["t"] != zoomed["t"] and "translate(0px, 0px)" not in panned["t"] and back["t"] == ""
                  and "scale(2.5)" in by_button["t"] and "scale(1.2" in by_wheel["t"] and by_double["t"] == ""
                  and next_photo["t"] == "" and next_photo["pressed"] == "false",
                  f"unzoomed {unzoomed}, zoomed {zoomed}, panned {panned}, back {back}, button {by_button},"
                  f" wheel {by_wheel}, double {by_double}, next {next_photo}")
            last_slug = slug_of(driver.current_url)
            driver.switch_to.active_element.send_keys(Keys.ESCAPE)
            closed = wait_until(lambda: not driver.execute_script(
                "return document.querySelector('dialog.viewer').open") and driver.current_url.split("#")[0] == url)
            focused = driver.execute_script(
                "return document.activeElement.closest('li') && document.activeElement.closest('li').id")
            check("Escape closes the viewer and gives focus back to the tile",
                  closed and focused == last_slug and driver.current_url.split("#")[0] == url,
                  f"focus on {focused!r}, expected {last_slug!r}; address {driver.current_url}")
            # The focus ring shows on every side of the tile: a tile draws only inside itself
            # (content-visibility), so the ring is drawn inside its edge.
            time.sleep(0.3)
            ring = driver.execute_script(
                "const link = document.activeElement; link.scrollIntoView({block: 'center'});"
                "const r = link.getBoundingClientRect();"
                "return {x: r.left + scrollX, y: r.top + scrollY, width: r.width, height: r.height,"
                " colour: getComputedStyle(link).outlineColor, visible: link.matches(':focus-visible')};")
            width, height, rows = pixels(driver, ring)
            target = [int(part) for part in ring["colour"][ring["colour"].index("(") + 1:-1].split(",")[:3]]

            def ringed(x, y):
                return sum(abs(a - b) for a, b in zip(rows[y][x], target)) < 90

            def side(points):
                return sum(any(ringed(x, y) for x, y in band) for band in points) / max(1, len(points))
            band = range(0, 6)
            sides = {
                "top": side([[(x, d) for d in band] for x in range(8, width - 8, 4)]),
                "bottom": side([[(x, height - 1 - d) for d in band] for x in range(8, width - 8, 4)]),
                "left": side([[(d, y) for d in band] for y in range(8, height - 8, 4)]),
                "right": side([[(width - 1 - d, y) for d in band] for y in range(8, height - 8, 4)]),
            }
            check("the focused tile's ring shows on all four sides", ring["visible"]
                  and all(share > 0.9 for share in sides.values()),
                  f"focus-visible {ring['visible']}, ring {ring['colour']}; share of each side ringed: "
                  f"{({k: round(v, 2) for k, v in sides.items()})}")

            # A browser without popovers: the viewer is a modal dialog, which Escape closes.
            no_popover = driver.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument",
                                                {"source": "delete HTMLElement.prototype.showPopover;"})
            try:
                open_page(driver, url)
                driver.find_elements(By.CSS_SELECTOR, ".gallery a[data-full]")[1].click()
                modal = wait_until(lambda: driver.execute_script(
                    "return document.querySelector('dialog.viewer').matches(':modal')"), timeout=5)
                driver.switch_to.active_element.send_keys(Keys.ESCAPE)
                closed = wait_until(lambda: not driver.execute_script(
                    "return document.querySelector('dialog.viewer').open"), timeout=5)
                check("without popovers the viewer opens as a modal dialog and Escape closes it",
                      modal and closed and driver.current_url.split("#")[0] == url,
                      f"modal {modal}, closed {closed}, address {driver.current_url}")
            finally:
                driver.execute_cdp_cmd("Page.removeScriptToEvaluateOnNewDocument", no_popover)

            # Opening grows the photo out of its tile and closing shrinks it back (animations
            # counted as the page makes them); none under prefers-reduced-motion.
            count_animations = """
                window.__animations = [];
                const animate = Element.prototype.animate;
                Element.prototype.animate = function (frames, options) {
                  window.__animations.push(JSON.stringify(frames));
                  return animate.call(this, frames, options);
                };"""
            for reduce in [False, True]:
                driver.execute_cdp_cmd("Emulation.setEmulatedMedia", {"features": [
                    {"name": "prefers-reduced-motion", "value": "reduce" if reduce else "no-preference"}]})
                open_page(driver, url)
                driver.execute_script(count_animations)
                driver.find_elements(By.CSS_SELECTOR, ".gallery a[data-full]")[1].click()
                wait_until(lambda: driver.execute_script(sharp))
                play_hidden = driver.execute_script("return document.querySelector('.viewer .play').hidden")
                driver.switch_to.active_element.send_keys(Keys.ESCAPE)
                # Closed at once, and back at the grid's address once the history answers.
                wait_until(lambda: not driver.execute_script("return document.querySelector('dialog.viewer').open")
                           and driver.current_url.split("#")[0] == url)
                made = driver.execute_script("return window.__animations")
                if reduce:
                    check("under prefers-reduced-motion: no animation, no slideshow", made == [] and play_hidden, made)
                else:
                    check("the photo grows out of its tile on opening and shrinks back into it on closing",
                          len(made) == 2 and all("scale(" in frames for frames in made) and not play_hidden, made)
            driver.execute_cdp_cmd("Emulation.setEmulatedMedia", {"features": []})

            # The slideshow moves on by itself and stops at a key; full screen comes and goes.
            open_page(driver, url)
            links = driver.find_elements(By.CSS_SELECTOR, ".gallery a[data-full]")
            links[2].click()
            wait_until(lambda: driver.execute_script(sharp))
            driver.find_element(By.CSS_SELECTOR, ".viewer .play").click()
            moved_on = wait_until(lambda: driver.current_url == pages[3], timeout=6)
            driver.switch_to.active_element.send_keys(Keys.SHIFT)
            stopped = driver.execute_script("return document.querySelector('.viewer .play').getAttribute('aria-pressed')")
            time.sleep(4.5)
            check("the slideshow moves on by itself and any key stops it",
                  moved_on and stopped == "false" and driver.current_url == pages[3], driver.current_url)
            full = driver.find_element(By.CSS_SELECTOR, ".viewer .full")
            if full.is_displayed():
                full.click()
                entered = wait_until(lambda: driver.execute_script(
                    "return document.fullscreenElement === document.querySelector('.viewer .frame')"), timeout=5)
                full.click()
                left = wait_until(lambda: driver.execute_script("return document.fullscreenElement === null"), timeout=5)
                check("the full screen button takes the viewer full screen and back", entered and left)
            else:
                check("the full screen button is there where the browser has the Fullscreen API", False)

            # Touch: two taps zoom, two fingers spread zoom, a finger dragging the photo down closes.
            def touch(*paths):
                builder = ActionBuilder(driver)
                fingers = [builder.add_pointer_input(interaction.POINTER_TOUCH, f"finger{n}") for n in range(len(paths))]
                for finger, path in zip(fingers, paths):
                    finger.create_pointer_move(x=int(path[0][0]), y=int(path[0][1]), duration=0)
                    finger.create_pointer_down(button=0)
                for step in range(1, len(paths[0])):
                    for finger, path in zip(fingers, paths):
                        finger.create_pointer_move(x=int(path[step][0]), y=int(path[step][1]), duration=60)
                for finger in fingers:
                    finger.create_pointer_up(button=0)
                builder.perform()
            middle = driver.execute_script(
                "const b = document.querySelector('.viewer .stage img').getBoundingClientRect();"
                " return [b.left + b.width / 2, b.top + b.height / 2]")
            cx, cy = middle

            def double_tap(x, y):
                # Both taps in one action sequence: their gap is the sequence's, not a round trip's.
                builder = ActionBuilder(driver)
                finger = builder.add_pointer_input(interaction.POINTER_TOUCH, "finger")
                finger.create_pointer_move(x=int(x), y=int(y), duration=0)
                for tap in range(2):
                    finger.create_pointer_down(button=0)
                    finger.create_pointer_up(button=0)
                    if tap == 0:
                        finger.create_pause(0.08)
                builder.perform()
            double_tap(cx, cy)
            tapped = driver.execute_script(state)
            double_tap(cx, cy)
            untapped = driver.execute_script(state)
            touch([(cx - 20, cy), (cx - 80, cy), (cx - 140, cy)], [(cx + 20, cy), (cx + 80, cy), (cx + 140, cy)])
            pinched = driver.execute_script(state)
            driver.find_element(By.CSS_SELECTOR, ".viewer .zoom").click()  # zoomed: back to whole
            touch([(cx, cy - 100), (cx, cy), (cx, cy + 120)])
            dragged_closed = wait_until(lambda: not driver.execute_script(
                "return document.querySelector('dialog.viewer').open"), timeout=5)
            check("touch: a double tap zooms and unzooms, two fingers spread zoom, a drag down closes",
                  "scale(2.5)" in tapped["t"] and untapped["t"] == "" and "scale(" in pinched["t"] and dragged_closed,
                  f"tapped {tapped}, untapped {untapped}, pinched {pinched}, closed {dragged_closed}")

            # 4. Back closes; deep links.
            open_page(driver, url)
            driver.find_elements(By.CSS_SELECTOR, ".gallery a[data-full]")[3].click()
            wait_until(lambda: driver.current_url == pages[3])
            driver.back()
            back_closed = wait_until(lambda: not driver.execute_script(
                "return document.querySelector('dialog.viewer').open") and driver.current_url == url)
            check("the back button closes the viewer", back_closed, driver.current_url)
            open_page(driver, pages[5])
            deep = driver.execute_script("""
                const img = document.querySelector('.photo-view img');
                return {ok: !!img && img.complete && img.naturalWidth > 0, title: document.title,
                        prev: !!document.querySelector('a[rel=prev]'), next: !!document.querySelector('a[rel=next]')};""")
            driver.find_element(By.TAG_NAME, "body").send_keys(Keys.ARROW_RIGHT)
            walked_on = wait_until(lambda: driver.current_url == pages[6])
            check("a deep link to a photo page shows the photo, and the arrow keys walk on",
                  deep["ok"] and deep["prev"] and deep["next"] and walked_on, f"{deep}, now at {driver.current_url}")
            axe_results["photo page"] = axe_scan(driver)
            # The photo page in one view: the photo whole, its neighbours and the way back on one
            # line above it, at a desktop's and a phone's size (the panorama and an upright photo).
            for width, height in [(1280, 800), (390, 844)]:
                size(driver, width, height)
                for page in [pages[1], pages[20]]:
                    open_page(driver, page)
                    wait_until(lambda: driver.execute_script(
                        "const i = document.querySelector('.photo-view img'); return i.complete"))
                    view = driver.execute_script("""
                        const box = e => e ? e.getBoundingClientRect() : null;
                        const img = box(document.querySelector('.photo-view img'));
                        const links = Array.from(document.querySelectorAll('.photo-nav a, .photo-nav .position'));
                        const parts = ['.previous', '.where', '.next'].map(s => document.querySelector('.photo-nav ' + s))
                          .filter(e => e).map(e => e.getBoundingClientRect());
                        const apart = parts.every((b, i) => i === 0 || parts[i - 1].right <= b.left + 0.5);
                        const line = Math.max(...links.map(a => parseFloat(getComputedStyle(a).fontSize))) * 1.6;
                        return {inner: innerHeight, img: img.bottom, imgTop: img.top, imgWidth: img.width,
                                links: links.map(a => ({bottom: box(a).bottom, height: box(a).height, right: box(a).right})),
                                line: line, apart: apart, scrollable: document.scrollingElement.scrollWidth > innerWidth};""")
                    in_view = view["img"] <= view["inner"] + 1 and all(
                        link["bottom"] <= view["imgTop"] + 1 and link["height"] <= view["line"] and link["right"] <= width
                        for link in view["links"]) and view["apart"] and not view["scrollable"] and view["imgWidth"] > 0
                    check(f"a photo page at {width}x{height} shows the photo whole under its links, each on one line"
                          f" ({slug_of(page)})", in_view, view)
            size(driver, 1280, 800)
            open_page(driver, pages[5])
            driver.find_element(By.TAG_NAME, "body").send_keys(Keys.ESCAPE)
            escaped = wait_until(lambda: driver.current_url.split("#")[0] in (url, url + "index.html")
                                 and driver.current_url.endswith("#" + slug_of(pages[5])))
            check("Escape on a photo page goes back to its tile on the grid", escaped, driver.current_url)
            # (From the grid's own address: after a #tile, Tab starts from the tile.)
            open_page(driver, url)
            driver.find_element(By.TAG_NAME, "body").send_keys(Keys.TAB)
            skip = driver.execute_script(
                "const a = document.activeElement; return {cls: a.className, left: a.getBoundingClientRect().left,"
                " target: !!document.getElementById((a.getAttribute('href') || '#').slice(1))}")
            check("the first Tab on a grid page reaches a visible skip link to the photos",
                  skip["cls"] == "skip" and skip["left"] >= 0 and skip["target"], skip)
            open_page(driver, pages[5])
            driver.execute_cdp_cmd("Emulation.setEmulatedMedia", {"media": "print"})
            printed = driver.execute_script(
                "return {nav: getComputedStyle(document.querySelector('.photo-nav')).display,"
                " img: document.querySelector('.photo-view img').getBoundingClientRect().height}")
            driver.execute_cdp_cmd("Emulation.setEmulatedMedia", {"media": ""})
            check("printed, a photo page is its photo and what it says, without the links",
                  printed["nav"] == "none" and printed["img"] > 100, printed)
            # A photo that says what it is (the sample's aqua.jpg carries XMP).
            said = [page for page in pages if "/aqua-" in page]
            check("the photo with XMP has a page", bool(said), pages)
            if said:
                open_page(driver, said[0])
                shown = driver.execute_script("""
                    const view = document.querySelector('.photo-view');
                    return {caption: (view.querySelector('.caption') || {}).textContent || '',
                            keywords: view.querySelectorAll('.keywords li').length,
                            licence: !!view.querySelector('a.licence[rel=license]'),
                            structured: !!document.querySelector('script[type="application/ld+json"]')};""")
                check("a photo page shows what the photo says: caption, keywords, credit, JSON-LD",
                      "ripples" in shown["caption"].lower() and shown["keywords"] == 3 and shown["licence"]
                      and shown["structured"], shown)
                fetched = driver.execute_async_script("""
                    const done = arguments[arguments.length - 1];
                    const link = document.querySelector('.photo-view .download a[download]');
                    if (!link) { done(null); return; }
                    fetch(link.href).then(r => r.arrayBuffer().then(b => done(
                        {name: link.getAttribute('download'), ok: r.ok, bytes: b.byteLength,
                         jpeg: new Uint8Array(b)[0] === 0xFF, label: link.parentNode.textContent})),
                        () => done({ok: false}));""")
                check("a photo page offers its original for download, under its own file name",
                      bool(fetched) and fetched["ok"] and fetched["jpeg"] and fetched["bytes"] > 10000
                      and fetched["name"] == "aqua.jpg" and "Download original (JPEG" in fetched["label"], fetched)
                axe_results["photo page with caption and keywords"] = axe_scan(driver)
                if shots:
                    time.sleep(0.3)
                    driver.save_screenshot(os.path.join(shots, "photo-page.png"))
            open_page(driver, url)
            axe_results["grid"] = axe_scan(driver)
            # The viewer shows the caption and the time taken, read from the photo's page once
            # its photo is in.
            aqua = [link for link in driver.find_elements(By.CSS_SELECTOR, ".gallery a[data-full]")
                    if "/aqua-" in link.get_attribute("href")]
            if aqua:
                aqua[0].click()
                told = wait_until(lambda: driver.execute_script(
                    "const s = document.querySelector('.viewer .said');"
                    "return !!s && !s.hidden && s.textContent.includes('Ripples')"))
                check("the viewer shows the photo's caption once its photo is in", told,
                      driver.execute_script("return document.querySelector('.viewer .said').outerHTML"))
                panel_js = """
                    const box = s => document.querySelector(s).getBoundingClientRect();
                    const said = box('.viewer .said'), img = box('.viewer .stage img');
                    const pos = box('.viewer .position'), bar = box('.viewer .bar');
                    const title = document.querySelector('.viewer .said-title');
                    return {hidden: document.querySelector('.viewer .said').hidden, beside: said.left >= img.right - 1,
                            above: said.bottom <= bar.top + 1, title: title.textContent,
                            titleShown: getComputedStyle(title).display !== 'none',
                            keywords: document.querySelectorAll('.viewer .said .keywords li').length,
                            counter: pos.bottom <= innerHeight && pos.top >= bar.top - 1 && pos.width > 0
                              && pos.right <= innerWidth, width: img.width,
                            buttons: Array.from(document.querySelectorAll('.viewer .bar button')).filter(b => !b.hidden)
                              .every(b => { const r = b.getBoundingClientRect(); return r.left >= 0 && r.right <= innerWidth; })};"""
                panel = driver.execute_script(panel_js)
                driver.find_element(By.CSS_SELECTOR, ".viewer .info").click()
                folded = driver.execute_script(panel_js)
                driver.find_element(By.CSS_SELECTOR, ".viewer .info").click()
                check("a wide window's caption panel is beside the photo (title, caption, keywords), the counter"
                      " clear of it; its button hides it and the photo takes the room",
                      not panel["hidden"] and panel["beside"] and panel["title"] == "Aqua" and panel["titleShown"]
                      and panel["keywords"] == 3 and panel["counter"] and folded["hidden"]
                      and folded["width"] >= panel["width"], f"{panel}; hidden: {folded}")
                offered = driver.execute_script(
                    "const a = document.querySelector('.viewer .said .download a[download]');"
                    "return a ? a.href : null")
                check("the viewer offers the photo's download beside its caption",
                      bool(offered) and "/originals/" in offered and offered.startswith("http"), offered)
                axe_results["viewer with a caption"] = axe_scan(driver)
                if shots:
                    time.sleep(0.3)
                    driver.save_screenshot(os.path.join(shots, "viewer.png"))
                driver.switch_to.active_element.send_keys(Keys.ESCAPE)
                wait_until(lambda: not driver.execute_script("return document.querySelector('dialog.viewer').open"))
                # A phone: the panel over the foot of the photo, above the bar; the bar says the title.
                size(driver, 390, 844)
                open_page(driver, url)
                [link for link in driver.find_elements(By.CSS_SELECTOR, ".gallery a[data-full]")
                 if "/aqua-" in link.get_attribute("href")][0].click()
                wait_until(lambda: driver.execute_script(
                    "const s = document.querySelector('.viewer .said'); return !s.hidden && s.textContent.includes('Ripples')"))
                phone = driver.execute_script(panel_js)
                check("a phone's caption panel sits above the bar, the counter clear of it, every button in the window",
                      not phone["hidden"] and phone["above"] and phone["counter"] and not phone["titleShown"]
                      and phone["buttons"], phone)
                driver.switch_to.active_element.send_keys(Keys.ESCAPE)
                wait_until(lambda: not driver.execute_script("return document.querySelector('dialog.viewer').open"))
                size(driver, 1280, 800)
            # An album with an album inside it, a keyword page and the keywords page.
            open_page(driver, url + "album-garden.html")
            album = driver.execute_script("""
                return {crumbs: Array.from(document.querySelectorAll('.breadcrumbs li')).map(l => l.textContent),
                        inside: Array.from(document.querySelectorAll('.album-index figcaption a')).map(a => a.textContent),
                        covers: Array.from(document.querySelectorAll('.album-index img')).filter(
                            i => i.complete && i.naturalWidth > 0).length,
                        own: document.querySelectorAll('.gallery.justified li.photo').length,
                        current: (document.querySelector('.albums [aria-current]') || {}).textContent};""")
            zipped = driver.execute_async_script("""
                const done = arguments[arguments.length - 1];
                const link = document.querySelector('main > .download a[download]');
                if (!link) { done(null); return; }
                fetch(link.href).then(r => r.arrayBuffer().then(b => done(
                    {name: link.getAttribute('download'), ok: r.ok, bytes: b.byteLength,
                     zip: new TextDecoder().decode(new Uint8Array(b).slice(0, 2)) === 'PK'})),
                    () => done({ok: false}));""")
            check("an album page offers a zip of the album",
                  bool(zipped) and zipped["ok"] and zipped["zip"] and zipped["name"] == "Garden.zip", zipped)
            check("an album page shows the album inside it with its cover, then its own photos",
                  album["crumbs"] == [] and album["inside"] == ["Flowers"] and album["covers"] == 1
                  and album["own"] == count // 3 and album["current"] == "Garden", album)
            if shots:
                driver.execute_script("window.scrollTo(0, 0)")
                time.sleep(0.5)
                driver.save_screenshot(os.path.join(shots, "album-page.png"))
            axe_results["album page"] = axe_scan(driver)
            open_page(driver, url + "album-garden-flowers.html")
            crumbs = driver.execute_script(
                "return Array.from(document.querySelectorAll('.breadcrumbs li')).map(l => l.textContent)")
            check("an album inside another shows the way up", crumbs == ["All photos", "Garden"], crumbs)
            open_page(driver, url + "keyword-ripples.html")
            tagged = driver.execute_script(
                "return Array.from(document.querySelectorAll('.gallery li.photo a[data-full]')).length")
            # aqua.jpg and its tinted copy: libvips keeps the XMP when it writes the copy.
            check("the keyword read from the photo's XMP has its page", tagged == 2, tagged)
            axe_results["keyword page"] = axe_scan(driver)
            open_page(driver, url + "keywords.html")
            axe_results["keywords page"] = axe_scan(driver)

            # 5. Flicking past slow photos cancels their transfers.
            open_page(driver, url)
            links = driver.find_elements(By.CSS_SELECTOR, ".gallery a[data-full]")
            links[10].click()
            wait_until(lambda: driver.execute_script(sharp))
            time.sleep(1.0)  # its neighbours are preloaded: not skipped, already here
            recorder.clear()
            recorder.delay = 1.5
            start = time.time()
            for _ in range(10):
                driver.switch_to.active_element.send_keys(Keys.ARROW_RIGHT)
                time.sleep(0.08)
            flicked = time.time() - start
            target = pages[20]
            arrived = wait_until(lambda: driver.execute_script(sharp) and driver.current_url == target, timeout=15)
            sharp_at = time.time()
            waited = sharp_at - start
            time.sleep(1.0)  # let the server see the last hang-ups
            recorder.delay = 0
            # Once the last photo has arrived, its neighbours are preloaded: a skipped photo next
            # to it is asked for again then, after the fact, which is not a transfer it waited for.
            target_images = tile_renditions(driver, slug_of(target))
            arrived_at = min([e["end"] for e in recorder.viewer_requests()
                              if e["path"].lstrip("/") in target_images and "end" in e] or [sharp_at])
            seen = [e for e in recorder.viewer_requests() if e["start"] < arrived_at]
            skipped_images = {slug_of(page): set(tile_renditions(driver, slug_of(page))) for page in pages[11:20]}
            outcomes = {}
            for slug, images in skipped_images.items():
                requests = [e for e in seen if e["path"].lstrip("/") in images]
                if not requests:
                    outcomes[slug] = "never started"
                elif all(e["outcome"] == "aborted" for e in requests):
                    outcomes[slug] = "aborted"
                else:
                    outcomes[slug] = "completed"
            cancelled = sum(1 for o in outcomes.values() if o != "completed")
            check("flicking through 10 slow photos cancels the skipped ones; the last does not wait for them",
                  arrived and cancelled == len(skipped_images) and waited < 1.5 + flicked + 1.5,
                  f"of 9 skipped: {sum(1 for o in outcomes.values() if o == 'aborted')} aborted at the server, "
                  f"{sum(1 for o in outcomes.values() if o == 'never started')} never started, "
                  f"{sum(1 for o in outcomes.values() if o == 'completed')} completed; the last photo sharp "
                  f"{waited:.2f}s after the first key ({flicked:.2f}s of flicking, 1.5s per image)"
                  + (f"; completed: {[(s, [(e['path'], e['outcome']) for e in seen if e['path'].lstrip('/') in skipped_images[s]]) for s, o in outcomes.items() if o == 'completed']}"
                     if any(o == 'completed' for o in outcomes.values()) else ""))
            # The tile's image stands in at the size the sharp one will have: no jump when it comes.
            recorder.delay = 1.5
            box = ("const i = document.querySelector('.viewer .stage img'); const b = i.getBoundingClientRect();"
                   " return {w: b.width, h: b.height, sharp: i.classList.contains('sharp'), src: !!i.currentSrc}")
            for _ in range(2):  # past the preloaded neighbour, to one still on its way
                driver.switch_to.active_element.send_keys(Keys.ARROW_RIGHT)
                time.sleep(0.08)
            time.sleep(0.4)
            standing_in = driver.execute_script(box)
            wait_until(lambda: driver.execute_script(sharp), timeout=10)
            sharp_box = driver.execute_script(box)
            recorder.delay = 0
            check("the sharp image replaces the tile's in place, at the size it had from the first frame",
                  not standing_in["sharp"] and standing_in["src"] and sharp_box["sharp"]
                  and abs(standing_in["w"] - sharp_box["w"]) < 1 and abs(standing_in["h"] - sharp_box["h"]) < 1
                  and sharp_box["w"] > 200, f"before {standing_in}, after {sharp_box}")
            driver.switch_to.active_element.send_keys(Keys.ESCAPE)
        finally:
            driver.quit()

        # 4b. Without JavaScript.
        plain = browser(javascript=False)
        try:
            open_page(plain, url)
            links = plain.find_elements(By.CSS_SELECTOR, ".gallery a[data-full]")
            target = links[2].get_attribute("href")
            links[2].click()
            wait_until(lambda: plain.current_url == target)
            ok = wait_until(lambda: plain.execute_script(
                "const i = document.querySelector('.photo-view img'); return i && i.complete && i.naturalWidth > 0"))
            nav = plain.find_element(By.CSS_SELECTOR, "a[rel=next]")
            nav.click()
            moved = wait_until(lambda: plain.current_url != target)
            check("without JavaScript, a tile opens its photo page and next leads on", ok and moved,
                  plain.current_url)
        finally:
            plain.quit()

        # Screenshots on a phone (light) and a desktop in dark mode: the grid, a photo page and the
        # open viewer, each with axe-core run on it.
        for width, height, dark in [(390, 844, False), (1280, 800, True)]:
            name = f"{width}" + ("-dark" if dark else "")
            other = browser(width, height, dark=dark)
            try:
                open_page(other, url)
                time.sleep(0.5)
                if shots:
                    other.save_screenshot(os.path.join(shots, f"grid-{name}.png"))
                axe_results[f"grid at {name}"] = axe_scan(other)
                aqua = [page for page in pages if "/aqua-" in page][0]
                open_page(other, aqua)
                time.sleep(0.3)
                if shots:
                    other.save_screenshot(os.path.join(shots, f"photo-page-{name}.png"))
                axe_results[f"photo page at {name}"] = axe_scan(other)
                open_page(other, url)
                [link for link in other.find_elements(By.CSS_SELECTOR, ".gallery a[data-full]")
                 if "/aqua-" in link.get_attribute("href")][0].click()
                wait_until(lambda: other.execute_script(
                    "const s = document.querySelector('.viewer .said'); return !s.hidden && s.textContent.includes('Ripples')"))
                time.sleep(0.4)
                if shots:
                    other.save_screenshot(os.path.join(shots, f"viewer-{name}.png"))
                axe_results[f"viewer at {name}"] = axe_scan(other)
            finally:
                other.quit()

        for name, violations in axe_results.items():
            bad = [v for v in violations if v.get("impact") in ("serious", "critical")]
            others = [v["id"] + "/" + str(v.get("impact")) for v in violations if v not in bad]
            check(f"axe-core: no serious or critical violation on the {name}", not bad,
                  f"{len(bad)} serious or critical" + (f": {[v['id'] for v in bad]}" if bad else "")
                  + (f"; lesser: {others}" if others else ""))
        server.shutdown()

        # 10. Other languages: Arabic (right to left) and Japanese, built from the same site.
        languages(binary, folder, shots)
        # 11. Clips.
        clips(binary, sample)
        # 12. Photos behind a content warning.
        content_warnings(binary, sample)
    passed = sum(results)
    failed = len(results) - passed
    print(f"{passed} passed, {failed} failed")
    sys.exit(1 if failed else 0)


def languages(binary, folder, shots=None):
    """The site in Arabic and in Japanese: the page's lang and dir, the viewer's labels and numbers in
    the language, the arrow keys mirrored right to left, and axe-core clean in every state."""
    config = os.path.join(folder, "gallery.yml")
    original = open(config).read()
    try:
        for tag in ("ar", "ja"):
            language(binary, folder, config, original, tag, shots)
    finally:
        with open(config, "w") as handle:
            handle.write(original)


def language(binary, folder, config, original, tag, shots):
    """One language's checks (``languages``)."""
    with open(config, "w") as handle:
        handle.write(original + f"language: {tag}\n")
    build = subprocess.run([binary, "build", folder], capture_output=True, text=True)
    if build.returncode != 0:
        raise SystemExit(f"gallerygen build ({tag}) failed: {build.stderr}")
    server, url = serve(os.path.join(folder, "public"), Recorder())
    driver = browser(1280, 800)
    scans = {}
    try:
        open_page(driver, url)
        lang, direction = driver.execute_script(
            "return [document.documentElement.lang, document.documentElement.dir]")
        check(f"{tag}: the page says its language and direction", (lang, direction) ==
              (tag, "rtl" if tag == "ar" else "ltr"), f"{lang} {direction}")
        scans["grid"] = axe_scan(driver)
        if shots and tag == "ar":
            driver.execute_script("window.scrollTo(0, 0)")
            time.sleep(0.5)
            driver.save_screenshot(os.path.join(shots, "grid-1280-ar.png"))
        first = driver.execute_script(
            "const g = document.querySelector('.gallery').getBoundingClientRect(),"
            " t = document.querySelector('.gallery li.photo').getBoundingClientRect();"
            " return [t.left - g.left, g.right - t.right]")
        if tag == "ar":
            check("ar: the first tile is at the right of the first row", abs(first[1]) < 2 and first[0] > 100,
                  f"{first}")
        links = driver.find_elements(By.CSS_SELECTOR, ".gallery a[data-full]")
        links[0].click()
        wait_until(lambda: driver.execute_script("return document.querySelector('dialog.viewer').open"))
        time.sleep(0.4)
        state = driver.execute_script(
            "const d = document.querySelector('dialog.viewer');"
            " const box = s => d.querySelector(s).getBoundingClientRect();"
            " return [d.getAttribute('aria-label'), d.querySelector('.close').getAttribute('aria-label'),"
            " d.querySelector('.position').textContent, box('.prev').left, box('.next').left]")
        expected = {"ar": ("عارض الصور", "إغلاق", "١ من " + "".join("٠١٢٣٤٥٦٧٨٩"[int(c)] for c in str(len(links)))),
                    "ja": ("写真ビューア", "閉じる", f"1 / {len(links)}")}[tag]
        check(f"{tag}: the viewer's labels and counter are in the language", tuple(state[:3]) == expected,
              f"{state[:3]}")
        scans["viewer"] = axe_scan(driver)
        if shots and tag == "ar":
            driver.save_screenshot(os.path.join(shots, "viewer-1280-ar.png"))
        forward = "ArrowLeft" if tag == "ar" else "ArrowRight"
        ActionChains(driver).send_keys(Keys.ARROW_LEFT if forward == "ArrowLeft" else Keys.ARROW_RIGHT).perform()
        moved = wait_until(lambda: driver.execute_script(
            "return document.querySelector('.viewer .position').textContent") != state[2], timeout=5)
        if tag == "ar":
            check("ar: the left arrow key goes to the next photo, and the previous button is at the right",
                  moved and state[3] > state[4], f"moved {moved}, prev at {state[3]}, next at {state[4]}")
        photo = links[1].get_attribute("href")
        open_page(driver, photo)
        scans["photo page"] = axe_scan(driver)
    finally:
        driver.quit()
        server.shutdown()
    check_scans(tag, scans)


def build_and_serve(binary, folder, config, label):
    """Writes `config` as the site's gallery.yml, builds it, and serves its output recorded."""
    with open(os.path.join(folder, "gallery.yml"), "w") as handle:
        handle.write(config)
    build = subprocess.run([binary, "build", folder], capture_output=True, text=True)
    if build.returncode != 0:
        raise SystemExit(f"gallerygen build ({label}) failed: {build.stderr}")
    recorder = Recorder()
    server, url = serve(os.path.join(folder, "public"), recorder)
    return recorder, server, url


def clips(binary, sample):
    """A gallery of two photos and two clips (``main``'s check 11)."""
    with tempfile.TemporaryDirectory() as folder:
        photos = os.path.join(folder, "photos")
        os.makedirs(photos)
        names = sorted(name for name in os.listdir(sample) if name.endswith(".jpg"))[:2]
        for name in names:
            shutil.copy(os.path.join(sample, name), os.path.join(photos, "a-" + name))
        # A Live Photo: a still and its motion of the same name.
        shutil.copy(os.path.join(sample, names[0]), os.path.join(photos, "d-live.jpg"))
        for name, size, seconds in [("b-waves.mp4", "640x360", 6), ("c-upright.mp4", "360x640", 3),
                                    ("d-live.mov", "640x480", 3)]:
            subprocess.run(["ffmpeg", "-nostdin", "-v", "error", "-y", "-f", "lavfi", "-i",
                            f"testsrc2=size={size}:rate=25:duration={seconds}", "-f", "lavfi", "-i",
                            f"sine=frequency=330:duration={seconds}", "-c:v", "libx264", "-preset", "ultrafast",
                            "-pix_fmt", "yuv420p", "-c:a", "aac", os.path.join(photos, name)], check=True)
        recorder, server, url = build_and_serve(
            binary, folder, "title: Clips\nfeed: photos\nvideo:\n  heights: [360]\n  webm: true\n", "clips")
        driver = browser(1280, 800)
        scans = {}
        videos = lambda: [e for e in recorder.entries if e["path"].endswith((".mp4", ".webm"))]
        try:
            open_page(driver, url)
            time.sleep(0.5)
            marks = driver.execute_script(
                "return Array.from(document.querySelectorAll('.gallery li.photo')).map(li =>"
                " [li.id, !!li.querySelector('a[data-video]'), (li.querySelector('.clip-mark') || {}).textContent || ''])")
            check("clips: each clip's tile has the play mark and its length, no photo's has",
                  [m[1] for m in marks] == [False, False, True, True, False]
                  and [m[2].strip() for m in marks[2:4]] == ["Video 0:06", "Video 0:03"], f"{marks}")
            check("clips: nothing of a clip is fetched with the grid", not videos(), f"{videos()}")
            scans["grid with clips"] = axe_scan(driver)
            tiles = driver.find_elements(By.CSS_SELECTOR, ".gallery a[data-full]")
            tiles[2].click()
            wait_until(lambda: driver.execute_script("return document.querySelector('dialog.viewer').open"))
            playing = wait_until(lambda: driver.execute_script(
                "const v = document.querySelector('.viewer video'); return !v.hidden && v.currentTime > 0.5"), 15)
            state = driver.execute_script(
                "const v = document.querySelector('.viewer video'), i = document.querySelector('.viewer .stage img');"
                " return [v.currentSrc, v.paused, i.hidden, v.canPlayType('video/webm; codecs=vp9'),"
                " v.getBoundingClientRect().width, v.getBoundingClientRect().height]")
            expected = ".webm" if state[3] else ".mp4"
            check("clips: the viewer plays the clip in place, in the format the browser plays first",
                  playing and state[0].endswith("-360p" + expected) and not state[1] and state[2]
                  and abs(state[4] / state[5] - 16 / 9) < 0.02, f"{state}")
            fetched = [e["path"] for e in videos()]
            check("clips: only the clip shown was fetched", len(set(fetched)) == 1 and fetched[0].endswith(expected),
                  f"{fetched}")
            scans["viewer playing a clip"] = axe_scan(driver)
            # Moving on stops it; a clip still arriving has its transfer hung up.
            ActionChains(driver).send_keys(Keys.ARROW_RIGHT).perform()
            stopped = wait_until(lambda: driver.execute_script(
                "const v = document.querySelector('.viewer video'); return v.getAttribute('src').includes('360p')"
                " && !v.paused"), 10)
            recorder.clear()
            recorder.delay = 6.0
            ActionChains(driver).send_keys(Keys.ARROW_LEFT).perform()
            wait_until(lambda: any(e["path"].endswith(expected) for e in videos()), 5)
            time.sleep(0.3)
            ActionChains(driver).send_keys(Keys.ARROW_LEFT).perform()
            aborted = wait_until(lambda: any(e["outcome"] == "aborted" for e in videos()), 8)
            left = driver.execute_script(
                "const v = document.querySelector('.viewer video'); return [v.hidden, v.getAttribute('src')]")
            check("clips: moving away stops the clip and hangs up its transfer",
                  stopped and aborted and left == [True, None], f"next playing {stopped}, {videos()}, {left}")
            recorder.delay = 0.0
            ActionChains(driver).send_keys(Keys.ESCAPE).perform()
            # The clip's own page: a video that fetches nothing until asked.
            recorder.clear()
            page = [t.get_attribute("href") for t in tiles][2]
            open_page(driver, page)
            time.sleep(0.5)
            element = driver.execute_script(
                "const v = document.querySelector('.photo-view video'); return v && [v.preload, v.controls,"
                " Array.from(v.querySelectorAll('source')).map(s => s.type), v.poster !== '']")
            check("clips: the clip's page has a video that fetches nothing until asked",
                  element == ["none", True, ["video/webm", "video/mp4"], True] and not videos(),
                  f"{element}, {videos()}")
            scans["clip page"] = axe_scan(driver)
            # The Live Photo: its still in the grid and the viewer; its motion plays under the pointer.
            open_page(driver, url)
            recorder.clear()
            live = driver.find_element(By.CSS_SELECTOR, "#d-live a[data-full]")
            check("clips: a Live Photo's tile is its still, with its motion for the viewer",
                  live.get_attribute("data-motion").endswith(" 360") and not live.get_attribute("data-video"),
                  live.get_attribute("data-motion"))
            live.click()
            wait_until(lambda: driver.execute_script("return document.querySelector('dialog.viewer').open"))
            wait_until(lambda: driver.execute_script('return document.querySelector(".viewer .stage img.sharp") !== null'))
            before = driver.execute_script(
                "const m = document.querySelector('.viewer video.motion'), b = document.querySelector('.viewer .live');"
                " return [m.hidden, m.getAttribute('src'), b.hidden]")
            check("clips: the Live Photo opens as its still, its motion not fetched, the LIVE button shown",
                  before == [True, None, False] and not videos(), f"{before}, {videos()}")
            ActionChains(driver).move_to_element(driver.find_element(By.CSS_SELECTOR, ".viewer .live")).perform()
            played = wait_until(lambda: driver.execute_script(
                "const m = document.querySelector('.viewer video.motion'); return !m.hidden && m.currentTime > 0.3"), 10)
            box = driver.execute_script(
                "const r = e => e.getBoundingClientRect(), m = r(document.querySelector('.viewer video.motion')),"
                " i = r(document.querySelector('.viewer .stage img')); return [m.left - i.left, m.top - i.top,"
                " m.width - i.width, m.height - i.height]")
            check("clips: the pointer on LIVE plays the motion over the still, box on box",
                  played and all(abs(v) < 1.5 for v in box), f"played {played}, offsets {box}")
            scans["viewer playing a Live Photo"] = axe_scan(driver)
            ActionChains(driver).move_to_element(driver.find_element(By.CSS_SELECTOR, ".viewer .bar .close")).perform()
            still = wait_until(lambda: driver.execute_script(
                "const m = document.querySelector('.viewer video.motion'); return m.hidden && !m.getAttribute('src')"), 5)
            check("clips: the pointer gone, the still again", still)
            # A click on LIVE plays it too (a keyboard's Enter or Space is that click).
            driver.find_element(By.CSS_SELECTOR, ".viewer .live").click()
            clicked = wait_until(lambda: driver.execute_script(
                "const m = document.querySelector('.viewer video.motion'); return !m.hidden && m.currentTime > 0.2"), 10)
            check("clips: a click on LIVE plays the motion", clicked)
        finally:
            driver.quit()
            server.shutdown()
        check_scans("clips", scans)


def content_warnings(binary, sample):
    """Five photos, two behind a content warning (a list feed's `contentWarning`, as a Mastodon post
    is with `feed.sensitive: behind_warning`): their tiles and pages show the warning over a blurred
    preview in the photo's own box and fetch nothing of the photo until asked, with or without
    JavaScript; a click shows it and another hides it; the viewer walks the other photos alone; and
    axe-core finds nothing serious or critical, shown or not (``main``'s check 12)."""
    with tempfile.TemporaryDirectory() as folder:
        os.makedirs(os.path.join(folder, "photos"))
        names = sorted(name for name in os.listdir(sample) if name.endswith(".jpg"))[:5]
        entries = []
        for index, name in enumerate(names):
            shutil.copy(os.path.join(sample, name), os.path.join(folder, "photos", name))
            entry = {"id": str(index + 1), "title": f"Secret title {index + 1}", "imageUrl": f"photos/{name}"}
            if index == 1:
                entry["contentWarning"] = "spiders, up close"
            if index == 3:
                entry["contentWarning"] = ""
            entries.append(entry)
        with open(os.path.join(folder, "feed.json"), "w") as handle:
            json.dump(entries, handle)
        recorder, server, url = build_and_serve(
            binary, folder, "title: Warnings\nfeed: feed.json\ntile_captions: true\n", "content warnings")
        scans = {}
        warned = ["photo-2", "photo-4"]

        def fetched(slug, driver):
            paths = driver.execute_script(
                "const li = document.getElementById(arguments[0]);"
                " return Array.from(li.querySelectorAll('img, source')).flatMap(e =>"
                " (e.getAttribute('srcset') || '').split(',').map(p => p.trim().split(' ')[0]))"
                ".filter(Boolean).map(p => '/' + p.replace(/^(\\.\\.\\/)+/, ''))", slug)
            with recorder.lock:
                return [e["path"] for e in recorder.entries if e["path"] in paths]

        for javascript in (True, False):
            label = "content warnings" + ("" if javascript else " without JavaScript")
            driver = browser(1280, 800, javascript=javascript)
            recorder.clear()
            try:
                open_page(driver, url)
                wait_until(lambda: driver.execute_script(
                    "return Array.from(document.querySelectorAll('.gallery li:not(.warned) img'))"
                    ".every(i => i.complete && i.naturalWidth > 0)"))
                boxes = driver.execute_script(
                    "return Array.from(document.querySelectorAll('.gallery li.photo')).map(li => {"
                    " const s = li.querySelector('details.cw:not([open]) > summary');"
                    " const box = (s || li.querySelector('img')).getBoundingClientRect();"
                    " return [li.id, !!s, box.width / box.height,"
                    "  parseFloat(getComputedStyle(li).getPropertyValue('--ar')),"
                    "  s ? s.innerText.replace(/\\s+/g, ' ').trim() : '',"
                    "  s ? getComputedStyle(s.querySelector('.veil')).filter : '']; })")
                check(f"{label}: only the warned tiles are veiled, each in its photo's own box",
                      [b[0] for b in boxes if b[1]] == warned
                      and all(abs(b[2] - b[3]) / b[3] < 0.02 for b in boxes), f"{boxes}")
                check(f"{label}: a veil says the warning's words (or that it is sensitive) over a blurred preview",
                      boxes[1][4] == "Content warning spiders, up close Show"
                      and boxes[3][4] == "Content warning Sensitive content Show"
                      and "blur(" in boxes[1][5], f"{[b[4:] for b in boxes]}")
                shown_text = driver.execute_script("return document.body.innerText")
                check(f"{label}: nothing of a warned photo's title shows before it is asked for",
                      "Secret title 2" not in shown_text and "Secret title 4" not in shown_text
                      and "Secret title 1" in shown_text)
                hidden = driver.execute_script(
                    "return ['photo-2', 'photo-4'].map(id => document.querySelector('#' + id + ' img').checkVisibility())")
                check(f"{label}: no warned photo is drawn before it is asked for", hidden == [False, False], f"{hidden}")
                # With scripting off a browser loads every image, lazy or not (HTML's lazy loading
                # is for pages that run script): then it is fetched, and still not drawn.
                if javascript:
                    check(f"{label}: nothing of a warned photo is fetched with the grid",
                          not fetched("photo-2", driver) and not fetched("photo-4", driver),
                          f"{fetched('photo-2', driver)}")
                scans[f"grid{'' if javascript else ' without JavaScript'}"] = axe_scan(driver) if javascript else []
                driver.find_element(By.CSS_SELECTOR, "#photo-2 summary").click()
                loaded = wait_until(lambda: driver.execute_script(
                    "const i = document.querySelector('#photo-2 img'); return i.complete && i.naturalWidth > 0"))
                state = driver.execute_script(
                    "const li = document.getElementById('photo-2'), s = li.querySelector('summary');"
                    " const img = li.querySelector('img').getBoundingClientRect();"
                    " return [li.querySelector('details').open, s.innerText.trim(), img.width / img.height,"
                    " parseFloat(getComputedStyle(li).getPropertyValue('--ar')), document.body.innerText]")
                check(f"{label}: a click shows the photo in the same box, and a Hide chip",
                      loaded and state[0] and state[1] == "Hide" and abs(state[2] - state[3]) / state[3] < 0.02
                      and fetched("photo-2", driver)
                      and (not javascript or not fetched("photo-4", driver)), f"{state[:4]}")
                if javascript:
                    scans["grid with a warned photo shown"] = axe_scan(driver)
                driver.find_element(By.CSS_SELECTOR, "#photo-2 summary").click()
                check(f"{label}: Hide puts it back behind its warning",
                      wait_until(lambda: not driver.execute_script(
                          "return document.querySelector('#photo-2 details').open"), 5))
                if javascript:
                    # The viewer walks the photos not behind a warning, and only them.
                    driver.find_element(By.CSS_SELECTOR, ".gallery li:not(.warned) a[data-full]").click()
                    wait_until(lambda: driver.execute_script("return document.querySelector('dialog.viewer').open"))
                    where = lambda: driver.execute_script(
                        "return document.querySelector('.viewer .position').textContent")
                    seen = [where()]
                    for _ in range(3):
                        ActionChains(driver).send_keys(Keys.ARROW_RIGHT).perform()
                        if not wait_until(lambda: where() != seen[-1], 5):
                            break
                        seen.append(where())
                    address = driver.current_url
                    check(f"{label}: the viewer walks the other photos alone",
                          seen == ["1 of 3", "2 of 3", "3 of 3"] and not any(s in address for s in warned),
                          f"{seen} {address}")
                # A warned photo's own page: the warning first, the photo only once asked for.
                recorder.clear()
                open_page(driver, url + "photos/photo-2.html")
                page = driver.execute_script(
                    "const d = document.querySelector('details.cw-page'), s = d.querySelector('summary');"
                    " const box = s.getBoundingClientRect();"
                    " return [d.open, box.width / box.height, parseFloat(d.style.getPropertyValue('--ar')),"
                    " document.body.innerText, box.height,"
                    " document.querySelector('.photo-view img').checkVisibility()]")
                images = [e["path"] for e in recorder.entries if e["path"].startswith("/images/")]
                check(f"{label}: a warned photo's page shows the warning in the photo's box, not the photo",
                      not page[0] and abs(page[1] - page[2]) / page[2] < 0.02 and page[4] > 300
                      and "Secret title 2" not in page[3] and not page[5] and (not javascript or not images),
                      f"{page[:3]} {page[4:]} {images}")
                if javascript:
                    scans["warned photo page"] = axe_scan(driver)
                driver.find_element(By.CSS_SELECTOR, "details.cw-page summary").click()
                loaded = wait_until(lambda: driver.execute_script(
                    "const i = document.querySelector('.photo-view img'); return i.complete && i.naturalWidth > 0"))
                check(f"{label}: a click on the page shows the photo with its title",
                      loaded and "Secret title 2" in driver.execute_script("return document.body.innerText"))
                if javascript:
                    scans["warned photo page, shown"] = axe_scan(driver)
            finally:
                driver.quit()
        server.shutdown()
        check_scans("content warnings", {k: v for k, v in scans.items() if v is not None})


def check_scans(label, scans):
    """One check per axe-core scan: no serious or critical violation."""
    for name, violations in scans.items():
        bad = [v["id"] for v in violations if v.get("impact") in ("serious", "critical")]
        check(f"{label}: axe-core: no serious or critical violation on the {name}", not bad, f"{bad}")


def axe_scan(driver):
    from axe_selenium_python import Axe
    axe = Axe(driver)
    axe.inject()
    return axe.run()["violations"]


if __name__ == "__main__":
    main()
