#!/usr/bin/env python3
"""What a visitor waits for: the default theme over a Slow-4G link, in headless Chromium.

Builds a 200-photo gallery (the sample site's 18 photos and tinted copies of them, each its own
bytes), serves it with nginx on 127.0.0.1 (gzip on for text, as a static host has it), and
loads it with the DevTools protocol's network emulation (150 ms round trip, 1.6 Mbit/s down,
750 kbit/s up), the browser cache off, at 390x844 and 1280x800 (device scale 1). For each, the
median of RUNS loads: Largest Contentful Paint, KB and image requests before any scroll, CLS
over the load, and the time from a click on the 10th tile to the viewer's photo shown sharp;
then, with the CPU slowed 4x, the longest animation frame (the Long Animation Frames API) while
the viewer closes, opens again and zooms in and out, under keys and a click sent as the browser's
own input. At 390x844, 1280x800 and 2560x1440, with the default page size (60 photos a page) and
with all 200 on one page.

    visitor.py GALLERYGEN_BINARY SAMPLE_PHOTOS WORK_FOLDER [RUNS]

VISITOR_WINDOWS (say `2560x1440`, or `390x844,1280x800`) measures those windows alone, and
VISITOR_PAGE_SIZES (`60` or `200`) those page sizes alone.
"""
import json
import os
import shutil
import signal
import statistics
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "Tests", "Browser"))
from selenium.webdriver.common.by import By  # noqa: E402

import theme_test  # noqa: E402

PORT = 8097
NGINX = """worker_processes 1;
pid {run}/nginx.pid;
error_log {run}/error.log warn;
events {{ worker_connections 1024; }}
http {{
  types {{ text/html html; text/css css; application/javascript js; application/json json;
          application/atom+xml xml; image/webp webp; image/jpeg jpg; image/png png; }}
  access_log {run}/access.log;
  client_body_temp_path {run}/tmp; proxy_temp_path {run}/tmp; fastcgi_temp_path {run}/tmp;
  uwsgi_temp_path {run}/tmp; scgi_temp_path {run}/tmp;
  sendfile on;
  gzip on; gzip_types text/css application/javascript application/json application/atom+xml;
  server {{ listen 127.0.0.1:{port}; root {root}; }}
}}
"""

PROBE = """
window.__lcp = 0; window.__cls = 0;
new PerformanceObserver(l => { for (const e of l.getEntries()) window.__lcp = e.startTime; })
  .observe({type: "largest-contentful-paint", buffered: true});
new PerformanceObserver(l => { for (const e of l.getEntries()) if (!e.hadRecentInput) window.__cls += e.value; })
  .observe({type: "layout-shift", buffered: true});
window.__frames = [];
new PerformanceObserver(l => { for (const e of l.getEntries()) window.__frames.push({start: e.startTime, duration: e.duration}); })
  .observe({type: "long-animation-frame"});
"""


def make_site(folder, photos, count=200, page_size=200):
    os.makedirs(os.path.join(folder, "photos"), exist_ok=True)
    names = sorted(n for n in os.listdir(photos) if n.endswith((".jpg", ".png")))
    feed = []
    for index in range(count):
        name = names[index % len(names)]
        if index < len(names):
            target = name
            shutil.copy(os.path.join(photos, name), os.path.join(folder, "photos", target))
        else:
            target = f"{index:03d}-{name}"
            subprocess.run(["vips", "linear", os.path.join(photos, name), os.path.join(folder, "photos", target),
                            str(0.7 + (index % 7) * 0.05), str(index % 40)], check=True)
        feed.append({"id": str(index + 1), "title": f"Photo {index + 1}", "imageUrl": f"photos/{target}"})
    with open(os.path.join(folder, "feed.json"), "w") as handle:
        json.dump(feed, handle)
    with open(os.path.join(folder, "gallery.yml"), "w") as handle:
        handle.write(f"title: Visitor benchmark\nfeed: feed.json\npage_size: {page_size}\n")


def measure(driver, url, width, height):
    theme_test.size(driver, width, height)
    driver.execute_cdp_cmd("Network.enable", {})
    driver.execute_cdp_cmd("Network.setCacheDisabled", {"cacheDisabled": True})
    driver.execute_cdp_cmd("Network.emulateNetworkConditions", {
        "offline": False, "latency": 150, "downloadThroughput": 1.6e6 / 8, "uploadThroughput": 750e3 / 8})
    driver.get(url)
    theme_test.wait_until(lambda: driver.execute_script("return document.readyState") == "complete", timeout=60)
    time.sleep(3)  # what loads before any scroll, lazy images near the fold included
    figures = driver.execute_script("""
        const images = performance.getEntriesByType('resource').filter(r => r.name.includes('/images/'));
        const all = performance.getEntriesByType('resource');
        const nav = performance.getEntriesByType('navigation')[0];
        return {lcp: window.__lcp, cls: window.__cls, images: images.length,
                bytes: all.reduce((s, r) => s + r.transferSize, 0) + nav.transferSize};""")
    links = driver.find_elements(By.CSS_SELECTOR, ".gallery a[data-full]")
    driver.execute_script("arguments[0].scrollIntoView({block: 'center'})", links[9])
    time.sleep(0.5)
    start = time.time()
    links[9].click()
    sharp = theme_test.wait_until(lambda: driver.execute_script(
        'return document.querySelector(".viewer .stage img.sharp") !== null'), timeout=30, step=0.01)
    figures["viewer"] = (time.time() - start) if sharp else float("nan")
    driver.execute_cdp_cmd("Network.emulateNetworkConditions", {
        "offline": False, "latency": 0, "downloadThroughput": -1, "uploadThroughput": -1})
    # Frames with the CPU 4x slower: close, open again, zoom in and out, close. The keys and the
    # click go in as the browser's own input (the DevTools protocol's Input domain), and nothing
    # is asked of the page between them: WebDriver's element calls and polls run scripts in the
    # page, which at 4x are long tasks of their own and would be counted in the frames.
    box = driver.execute_script(
        "const r = arguments[0].getBoundingClientRect(); return [r.left + r.width / 2, r.top + r.height / 2]",
        links[9])

    def key(name, code, number):
        text = name if len(name) == 1 else ""
        driver.execute_cdp_cmd("Input.dispatchKeyEvent", {
            "type": "keyDown", "key": name, "code": code, "windowsVirtualKeyCode": number, "text": text})
        driver.execute_cdp_cmd("Input.dispatchKeyEvent", {
            "type": "keyUp", "key": name, "code": code, "windowsVirtualKeyCode": number})

    def click():
        for kind in ["mousePressed", "mouseReleased"]:
            driver.execute_cdp_cmd("Input.dispatchMouseEvent", {
                "type": kind, "x": box[0], "y": box[1], "button": "left", "clickCount": 1})

    driver.execute_cdp_cmd("Emulation.setCPUThrottlingRate", {"rate": 4})
    # The frames of this script's own call are over before the first key.
    driver.execute_script("""
        const dialog = document.querySelector('dialog.viewer');
        window.__states = [];
        new MutationObserver(() => window.__states.push(dialog.open))
          .observe(dialog, {attributes: true, attributeFilter: ['open']});
        window.__frames = []; window.__from = performance.now() + 300;""")
    time.sleep(0.5)
    for action, pause in [(lambda: key("Escape", "Escape", 27), 1.0), (click, 1.5),
                          (lambda: key("+", "Equal", 187), 0.6), (lambda: key("+", "Equal", 187), 0.6),
                          (lambda: key("-", "Minus", 189), 0.6), (lambda: key("-", "Minus", 189), 0.6),
                          (lambda: key("Escape", "Escape", 27), 1.0)]:
        action()
        time.sleep(pause)
    frames, states = driver.execute_script("""
        return [window.__frames.filter(f => f.start + f.duration > window.__from).map(f => f.duration),
                window.__states];""")
    driver.execute_cdp_cmd("Emulation.setCPUThrottlingRate", {"rate": 1})
    if states != [False, True, False]:
        raise SystemExit(f"the viewer did not close, open and close under the keys and click: {states}")
    figures["frame"] = max(frames, default=0)
    return figures


def main():
    binary, photos, work = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2]), os.path.abspath(sys.argv[3])
    runs = int(sys.argv[4]) if len(sys.argv) > 4 else 5
    # Both sites share the photos' folder: the second only changes the page size.
    sites = []
    page_sizes = [int(size) for size in os.environ.get("VISITOR_PAGE_SIZES", "60,200").split(",")]
    windows = [tuple(int(side) for side in window.split("x"))
               for window in os.environ.get("VISITOR_WINDOWS", "390x844,1280x800,2560x1440").split(",")]
    for page_size in page_sizes:
        site = os.path.join(work, f"visitor-site-{page_size}")
        if not os.path.exists(os.path.join(site, "gallery.yml")):
            make_site(site, photos, page_size=page_size)
        subprocess.run([binary, "build", site, "-q"], check=True)
        sites.append((page_size, os.path.join(site, "public")))
    run = os.path.join(work, "visitor-nginx")
    os.makedirs(os.path.join(run, "tmp"), exist_ok=True)
    driver = theme_test.browser()
    driver.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": PROBE})
    try:
        print("page size  window      LCP (s)  KB before scroll  images before scroll  CLS     viewer sharp (s)"
              "  longest frame, CPU 4x (ms)")
        for page_size, root in sites:
            with open(os.path.join(run, "nginx.conf"), "w") as handle:
                handle.write(NGINX.format(run=run, port=PORT, root=root))
            subprocess.run(["nginx", "-c", os.path.join(run, "nginx.conf"), "-p", run], check=True)
            url = f"http://127.0.0.1:{PORT}/index.html"
            try:
                for width, height in windows:
                    samples = [measure(driver, url, width, height) for _ in range(runs)]
                    median = {key: statistics.median(s[key] for s in samples) for key in samples[0]}
                    print(f"{page_size:9d}  {width}x{height:<5} {median['lcp'] / 1000:7.2f}  "
                          f"{median['bytes'] / 1024:16.0f}  {median['images']:20.0f}  {median['cls']:.4f}  "
                          f"{median['viewer']:16.2f}  {median['frame']:26.0f}"
                          f"   (runs: LCP {[round(s['lcp']) for s in samples]} ms, "
                          f"viewer {[round(s['viewer'], 2) for s in samples]} s, "
                          f"frames {[round(s['frame']) for s in samples]} ms)", flush=True)
            finally:
                with open(os.path.join(run, "nginx.pid")) as handle:
                    os.kill(int(handle.read().strip()), signal.SIGQUIT)
                time.sleep(0.5)
    finally:
        driver.quit()


if __name__ == "__main__":
    main()
