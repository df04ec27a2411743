#!/usr/bin/env python3
"""`gallerygen serve` on a site: the time from a saved caption to the reload event the open page
hears, and whether the page then shows the caption.

    serve-edit.py GALLERYGEN SITE PHOTO_STEM PHOTO_PAGE

Starts `gallerygen serve SITE --port 0`, waits for its first build (the address it prints),
opens the live-reload stream (`/__gallerygen/events`) as a page does, writes
`photos/PHOTO_STEM.md` (a caption sidecar) and reads the stream until `event: reload`. Then
fetches PHOTO_PAGE (a path under the output folder, e.g. `photos/x.html`, or a pattern of one
such as `photos/x*.html`) and checks the caption is in it. Prints one line: `edit-to-reload SECONDS shown yes|no`.
"""
import glob
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request


def main():
    binary, site, stem, page = sys.argv[1:5]
    server = subprocess.Popen(
        [binary, "serve", site, "--port", "0"], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        address = None
        for line in server.stdout:
            sys.stderr.write("serve: " + line)
            if "Serving the gallery at " in line:
                address = line.split("Serving the gallery at ", 1)[1].split()[0]
                break
        if not address:
            raise SystemExit("serve ended before it served")
        host, port = address.split("//", 1)[1].rstrip("/").rsplit(":", 1)
        stream = socket.create_connection((host, int(port)), timeout=120)
        stream.sendall(b"GET /__gallerygen/events HTTP/1.1\r\nHost: x\r\nAccept: text/event-stream\r\n\r\n")
        received = b""
        while b": connected" not in received and b"\r\n\r\n" not in received:
            received += stream.recv(4096)
        caption = "A caption saved at %s" % time.strftime("%H:%M:%S")
        path = os.path.join(site, "photos", stem + ".md")
        started = time.monotonic()
        with open(path, "w") as file:
            file.write(caption + "\n")
        received = b""
        while b"event: reload" not in received:
            chunk = stream.recv(4096)
            if not chunk:
                raise SystemExit("the event stream ended")
            received += chunk
        seconds = time.monotonic() - started
        if "*" in page:
            matches = sorted(glob.glob(os.path.join(site, "public", page)))
            page = os.path.relpath(matches[0], os.path.join(site, "public")) if matches else page
        with urllib.request.urlopen(address + page, timeout=60) as response:
            shown = caption in response.read().decode("utf-8")
        print("edit-to-reload %.2f shown %s" % (seconds, "yes" if shown else "no"))
        os.remove(path)
    finally:
        server.send_signal(signal.SIGINT)
        try:
            server.wait(timeout=60)
        except subprocess.TimeoutExpired:
            server.kill()
        for line in server.stdout or []:
            sys.stderr.write("serve: " + line)


if __name__ == "__main__":
    main()
