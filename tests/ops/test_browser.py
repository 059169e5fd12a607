"""A web page calls the API from a real browser (headless Chromium): with ``GIN_CORS_ORIGINS`` naming
its origin it passes the preflight, sends its own ``X-Request-ID``, reads the answers, the problems
and the id, and the 404 of a mistyped path, and a GET asked for again is answered from the browser's
cache; the probes stay closed to it, and a page of any other origin reads nothing.

Runs where Chromium is installed (Debian: ``apt-get install chromium``), skipped elsewhere.
"""

from __future__ import annotations

import html
import json
import re
import shutil
import subprocess
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from .conftest import service_server

pytestmark = pytest.mark.skipif(shutil.which("chromium") is None, reason="chromium is not installed")

STATE = {"hand": "As 2s 3s 7h 7d Kd Qd Jd 5c 9h", "phase": "draw", "upcard": "4d", "discard_pile": ["4d", "Tc", "7c"],
         "stock_count": 29, "opponent_discards": ["7c"]}

ANALYZE = "/v1/hands/analyze?hand=As,2s,3s,7h,7d,7c,Kd,Qd,Jd,5c"

# Each call writes one line: the status, the X-Request-ID the page could read and a word of the body, or
# "blocked" when the browser kept the answer from the page.
PAGE = """<!doctype html><pre id="out">pending</pre><script>
async function call(path, init) {
  try {
    const answer = await fetch(API + path, init);
    const body = await answer.json();
    const what = body.action ? body.action.type : body.detail ?? `deadwood ${body.deadwood}`;
    return `${answer.status} ${answer.headers.get("X-Request-ID")} ${what}`;
  } catch (error) { return "blocked"; }
}
(async () => {
  const headers = {"Content-Type": "application/json", "X-Request-ID": "page-7"};
  const lines = [
    await call("/v1/hint", {method: "POST", headers, body: JSON.stringify(STATE)}),
    await call("/v1/hands/analyze", {method: "POST", headers, body: JSON.stringify({hand: "As"})}),
    await call("/v1/hints", {method: "POST", headers, body: "{}"}),
    await call("/healthz", {}),
    await call(ANALYZE, {}),
    await call(ANALYZE, {}),  // from the browser's cache: the same answer, with the same id
    await call(ANALYZE, {headers: {"X-Request-ID": "page-9"}}),  // not from it: the answer varies with the id
  ];
  document.getElementById("out").textContent = lines.join("\\n");
})();
</script>"""


class PageServer(ThreadingHTTPServer):
    """A server on a port of its own (its own origin) whose one page calls the API at ``api``."""

    api = ""

    @property
    def origin(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}"


class Page(BaseHTTPRequestHandler):
    server: PageServer

    def do_GET(self) -> None:
        page = (PAGE.replace("API", json.dumps(self.server.api)).replace("STATE", json.dumps(STATE))
                .replace("ANALYZE", json.dumps(ANALYZE))).encode()
        self.send_response(200)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(page)))
        self.end_headers()
        self.wfile.write(page)

    def log_message(self, format: str, *args: object) -> None:
        """Quiet."""


@pytest.fixture(scope="module")
def pages() -> Iterator[tuple[PageServer, PageServer]]:
    """A page of the origin the service allows and one of another origin, both calling it."""
    allowed, other = PageServer(("127.0.0.1", 0), Page), PageServer(("127.0.0.1", 0), Page)
    for page in (allowed, other):
        threading.Thread(target=page.serve_forever, daemon=True).start()
    try:
        with service_server(workers=1, env={"GIN_CORS_ORIGINS": allowed.origin}) as api:
            allowed.api = other.api = api.url
            yield allowed, other
    finally:
        allowed.shutdown()
        other.shutdown()


def page_lines(page: PageServer, profile: Path) -> list[str]:
    """What the page wrote, once Chromium has run it."""
    dom = subprocess.run(
        ["chromium", "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         f"--user-data-dir={profile}", "--virtual-time-budget=10000", "--dump-dom", f"{page.origin}/"],
        capture_output=True, text=True, timeout=120, check=True).stdout
    written = re.search(r'<pre id="out">(.*?)</pre>', dom, re.DOTALL)
    assert written, dom
    return html.unescape(written.group(1)).splitlines()


def test_an_allowed_page_reads_answers_problems_and_ids(pages: tuple[PageServer, PageServer],
                                                         tmp_path: Path) -> None:
    allowed, _ = pages
    lines = page_lines(allowed, tmp_path)
    assert lines[:4] == [
        "200 page-7 take_upcard",
        "422 page-7 hand: a hand here has 10 or 11 cards, got 1",
        "404 page-7 no resource at /v1/hints; see /docs/",  # its preflight let through
        "blocked",  # the probes are not for pages
    ]
    assert re.fullmatch(r"200 [0-9a-f]{32} deadwood 5", lines[4]) and lines[5] == lines[4]  # the GET kept
    assert lines[6] == "200 page-9 deadwood 5"


def test_a_page_of_another_origin_reads_nothing(pages: tuple[PageServer, PageServer], tmp_path: Path) -> None:
    _, other = pages
    assert page_lines(other, tmp_path) == ["blocked"] * 7
