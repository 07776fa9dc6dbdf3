"""The HTML report in a real headless Chromium: it loads, its images load, nothing errs, it is not
blank, and a laptop's first screen of the index shows the first job's table.

The report folder is served on loopback by http.server in a thread; a check page served from
memory (never written into the report) frames three pages at a phone's width and the index at a
laptop's, and once they have loaded, writes what it found into its own DOM, which `--dump-dom`
prints. Chromium prints every console message as a CONSOLE line on stderr
(`--enable-logging=stderr`); the server records every request's status. No network beyond 127.0.0.1.
"""

from __future__ import annotations

import io
import json
import re
import shutil
import subprocess
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from functools import partial
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

PHONE_WIDTH = 390
DESK = (1400, 1000)  # the first screen of a laptop: the index's first job table must be on it
PAGES = ("2026-11-25/index.html", "2026-11-25/workloads/dflash-qwen36-27b.html", "index.html")
CHECK_PAGE = """<!doctype html><html><head><meta charset="utf-8"><link rel="icon" href="data:,"></head><body>
{frames}
<pre id="result">pending</pre>
<script>
window.addEventListener("load", () => {{
  const found = Array.from(document.querySelectorAll("iframe")).map(frame => {{
    const doc = frame.contentDocument;
    const images = Array.from(doc.images);
    const heading = doc.querySelector("h3"), table = doc.querySelector("h3 ~ .scroll table, h3 ~ table");
    const firstRow = table && table.rows.length > 1 ? table.rows[1].getBoundingClientRect().bottom : null;
    return {{page: frame.getAttribute("src"), width: frame.clientWidth, title: doc.title, images: images.length,
             broken: images.filter(i => !(i.complete && i.naturalWidth > 0)).map(i => i.getAttribute("src")),
             overflow: doc.documentElement.scrollWidth - frame.clientWidth,
             firstJob: heading ? heading.textContent : null, firstRowBottom: firstRow}};
  }});
  document.getElementById("result").textContent = JSON.stringify(found);
}});
</script></body></html>"""
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--enable-logging=stderr", "--v=0"]


def chromium() -> str:
    for name in ("chromium", "chromium-browser", "google-chrome"):
        if path := shutil.which(name):
            return path
    pytest.skip("Chromium is not installed (`apt-get install -y chromium`): the headless browser check needs it")


@contextmanager
def serve(folder: Path) -> Iterator[tuple[str, list[tuple[str, int]]]]:
    """Serve `folder` (and the check page) on 127.0.0.1; yields the base URL and the (path, status) log."""
    seen: list[tuple[str, int]] = []
    frames = "\n".join(f'<iframe src="{p}" style="width:{PHONE_WIDTH}px;height:800px"></iframe>' for p in PAGES)
    frames += f'\n<iframe src="{PAGES[0]}" style="width:{DESK[0]}px;height:{DESK[1]}px;border:0"></iframe>'
    check = CHECK_PAGE.format(frames=frames).encode()

    class Handler(SimpleHTTPRequestHandler):
        def do_GET(self):  # noqa: N802 - http.server's name
            if self.path == "/_check.html":
                self.send_response(200)
                self.send_header("Content-Type", "text/html; charset=utf-8")
                self.send_header("Content-Length", str(len(check)))
                self.end_headers()
                self.wfile.write(check)
                return
            super().do_GET()

        def log_request(self, code="-", size="-"):
            seen.append((self.path, int(code)))

        def log_message(self, *args):  # quiet
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), partial(Handler, directory=str(folder)))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}", seen
    finally:
        server.shutdown()
        server.server_close()


def run_chromium(binary: str, profile: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([binary, *FLAGS, f"--user-data-dir={profile}", *args], capture_output=True, text=True,
                          timeout=120, check=False)


def test_the_html_report_loads_in_headless_chromium(nights, tmp_path):
    from PIL import Image

    binary = chromium()
    with serve(nights.reports) as (base, seen):
        dom = run_chromium(binary, tmp_path / "profile", "--window-size=1400,1000", "--virtual-time-budget=10000",
                           "--dump-dom", f"{base}/_check.html")
        shot = tmp_path / "phone.png"
        screenshot = run_chromium(binary, tmp_path / "profile", f"--window-size={PHONE_WIDTH},844",
                                  f"--screenshot={shot}", f"{base}/2026-11-25/index.html")

    assert dom.returncode == 0, dom.stderr[-2000:]
    match = re.search(r'<pre id="result">(.*?)</pre>', dom.stdout, re.S)
    assert match, dom.stdout[-2000:]
    frames = json.loads(match.group(1).replace("&quot;", '"'))
    found = {page["page"]: page for page in frames if page["width"] == PHONE_WIDTH}
    assert set(found) == set(PAGES)
    # on a laptop's first screen the index shows the first job's table, its first row included
    desk = next(page for page in frames if page["width"] == DESK[0])
    assert desk["firstJob"].startswith("DFlash drafter training for Qwen3.6-27B"), desk
    assert desk["firstRowBottom"] is not None and desk["firstRowBottom"] <= DESK[1], desk
    for page in found.values():
        assert page["title"] and page["broken"] == [], page
        assert page["overflow"] <= 0, page  # wide tables scroll in their box; the page itself does not
    assert found[PAGES[0]]["images"] >= 3 and found[PAGES[1]]["images"] == 1
    console = [line for line in (dom.stderr + screenshot.stderr).splitlines() if ":CONSOLE" in line]
    assert console == []
    assert [request for request in seen if request[1] >= 400] == []
    assert any(path.endswith("chart-backtest.png") for path, _ in seen)

    assert screenshot.returncode == 0 and shot.exists(), screenshot.stderr[-2000:]
    image = Image.open(io.BytesIO(shot.read_bytes())).convert("RGB")
    assert image.width == PHONE_WIDTH
    colours = image.getcolors(maxcolors=1 << 20)
    assert colours is not None and len(colours) > 1  # not a blank page
