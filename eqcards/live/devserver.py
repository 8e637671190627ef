"""The HTTP side of `make serve`: the built site, reloaded page by page, with a status box that says
what is being updated and what is wrong.

Each page is served with a small script that long-polls `/.eqcards/live`. The answer comes when
that page was rebuilt (the script reloads it) or when the status changed (pages being updated
after an edit, problems): the script shows it in a box in the corner, so a page that is about to
change, or a site with a problem elsewhere, never looks finished when it is not. Pages that an
edit did not change are not reloaded.
"""

from __future__ import annotations

import html
import http.server
import json
import mimetypes
import posixpath
import sys
import threading
import time
import urllib.parse
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

LIVE_PATH = "/.eqcards/live"
POLL_SECONDS = 25.0  # a poll is answered at the latest after this long, changed or not


def canonical(path: str) -> str:
    """The one spelling of a page's URL path: "/cards/x/index.html" and "/cards/x" are "/cards/x/"."""
    path = posixpath.normpath("/" + urllib.parse.unquote(path).lstrip("/"))
    path = path.removesuffix("index.html")
    if not path.endswith("/") and "." not in posixpath.basename(path):
        path += "/"
    return path if path.startswith("/") else "/" + path


@dataclass
class Status:
    """What every open page is told: the update in progress, the pages it will rewrite, problems."""

    updating: str = ""  # e.g. "12 pages that list every card, and search"; "" when none
    pending: set[str] = field(default_factory=set)  # URL paths about to be rebuilt
    problems: list[tuple[str, str]] = field(default_factory=list)  # (URL path of its page or "", text)


class LiveState:
    """Versions of the pages (a page reloads when its version passes the one it was served with)
    and the status; the build thread changes them, request threads wait on them."""

    def __init__(self) -> None:
        self._cond = threading.Condition()
        # Versions start from the clock, so a page served by an earlier session reloads.
        self._base = int(time.time() * 1000)
        self._all = self._base  # a version every page has (after a full build)
        self._pages: dict[str, int] = {}
        self._token = self._base  # changes with every status change
        self.status = Status()
        self.ready = False  # a site has been built

    def version(self, path: str) -> int:
        return max(self._all, self._pages.get(canonical(path), 0))

    def _next(self) -> int:
        self._base += 1
        return self._base

    def changed(self, paths: Iterable[str] | None = None) -> None:
        """These pages (None: all) were rewritten: pages showing them reload."""
        with self._cond:
            version = self._next()
            if paths is None:
                self._all = version
                self.status.pending.clear()
                self.ready = True
            else:
                for path in paths:
                    self._pages[canonical(path)] = version
                    self.status.pending.discard(canonical(path))
            self._token = self._next()
            self._cond.notify_all()

    def set_status(self, updating: str | None = None, pending: Iterable[str] | None = None,
                   problems: list[tuple[str, str]] | None = None) -> None:
        with self._cond:
            if updating is not None:
                self.status.updating = updating
            if pending is not None:
                self.status.pending = {canonical(p) for p in pending}
            if problems is not None:
                self.status.problems = problems
            self._token = self._next()
            self._cond.notify_all()

    def snapshot(self, path: str) -> dict:
        """What the page at `path` is told now."""
        path = canonical(path)
        with self._cond:
            return {"version": self.version(path), "token": self._token, "ready": self.ready,
                    "updating": self.status.updating, "pending": path in self.status.pending,
                    "problems": [{"page": page, "text": text} for page, text in self.status.problems]}

    def wait(self, path: str, version: int, token: int, timeout: float = POLL_SECONDS) -> dict:
        """Block until the page's version passes `version` or the status token changes."""
        path = canonical(path)
        with self._cond:
            self._cond.wait_for(lambda: self.version(path) > version or self._token != token, timeout)
        answer = self.snapshot(path)
        answer["reload"] = answer["version"] > version
        return answer


CLIENT = """
(function (path, state) {
  var box = null;
  function text(tag, content, style) {
    var node = document.createElement(tag); node.textContent = content;
    if (style) node.setAttribute("style", style); return node;
  }
  function show(s) {
    if (!box) {
      box = document.createElement("div"); box.id = "eqcards-serve-status";
      box.setAttribute("role", "status");
      box.setAttribute("style", "position:fixed;right:1em;bottom:1em;z-index:1000;max-width:36em;" +
        "max-height:50vh;overflow:auto;padding:.6em .9em;border-radius:.3em;font:13px/1.4 sans-serif;" +
        "background:#fff8e1;color:#222;box-shadow:0 1px 6px rgba(0,0,0,.3)");
      document.body.appendChild(box);
    }
    box.replaceChildren();
    if (s.pending) box.appendChild(text("strong", "This page is being updated after your edit\\u2026"));
    if (s.updating) box.appendChild(text("div", "Updating " + s.updating + "\\u2026"));
    if (s.problems.length) {
      box.appendChild(text("strong", s.problems.length + (s.problems.length > 1 ? " problems" : " problem") +
                           " (make build would stop):", "display:block;color:#b71c1c"));
      s.problems.forEach(function (p) {
        var line = text(p.page ? "a" : "div", p.text.split("\\n")[0], "display:block;color:#b71c1c");
        if (p.page) line.href = p.page;
        box.appendChild(line);
      });
    }
    box.style.display = box.childNodes.length ? "block" : "none";
  }
  function poll() {
    fetch("LIVE?path=" + encodeURIComponent(path) + "&version=" + state.version + "&token=" + state.token)
      .then(function (r) { return r.json(); })
      .then(function (s) {
        if (s.reload) { location.reload(); return; }
        state.token = s.token; show(s); poll();
      })
      .catch(function () { setTimeout(poll, 1000); });
  }
  show(state); poll();
})""".replace("LIVE", LIVE_PATH)

WAITING_PAGE = """<!doctype html><html lang="en"><head><meta charset="utf-8"><title>{title}</title></head>
<body style="font:16px/1.5 sans-serif;margin:2em"><h1>{title}</h1>{body}</body></html>"""


def inject(page: bytes, path: str, state: dict) -> bytes:
    """The page with the live script before its closing body tag."""
    script = f"<script>{CLIENT}({json.dumps(canonical(path))}, {json.dumps(state)});</script>"
    at = page.rfind(b"</body>")
    at = len(page) if at < 0 else at
    return page[:at] + script.encode() + page[at:]


class LiveServer(http.server.ThreadingHTTPServer):
    """Serves `root` (switched atomically after a full build) to browsers, with live reload."""

    daemon_threads = True

    def __init__(self, address: tuple[str, int], state: LiveState, lock: threading.Lock) -> None:
        super().__init__(address, LiveHandler)
        self.state = state
        self.lock = lock  # the build holds it while it writes a file
        self.root: Path | None = None
        self.waiting_message = "The site is being built"

    @property
    def url(self) -> str:
        host, port = self.server_address[:2]
        return f"http://{host}:{port}/"

    def handle_error(self, request: object, client_address: object) -> None:
        if not isinstance(sys.exc_info()[1], ConnectionError):  # a browser that navigated on
            super().handle_error(request, client_address)


class LiveHandler(http.server.BaseHTTPRequestHandler):
    server: LiveServer

    def log_message(self, format: str, *args: object) -> None:
        pass

    def do_GET(self) -> None:
        url = urllib.parse.urlsplit(self.path)
        if url.path == LIVE_PATH:
            return self._live(urllib.parse.parse_qs(url.query))
        root = self.server.root
        if root is None:
            return self._waiting(url.path)
        relative = posixpath.normpath(urllib.parse.unquote(url.path)).lstrip("/")
        if relative in ("", "."):
            relative = "index.html"
        target = root / relative
        if target.is_dir():
            if not url.path.endswith("/"):
                return self._redirect(url.path + "/")
            target = target / "index.html"
        status = 200
        with self.server.lock:
            try:
                body = target.read_bytes()
            except OSError:
                status, target = 404, root / "404.html"
                body = target.read_bytes() if target.is_file() else b"<h1>404 Not Found</h1>"
        kind = mimetypes.guess_type(target.name)[0] or "application/octet-stream"
        if target.suffix == ".html":
            kind = "text/html; charset=utf-8"
            body = inject(body, url.path, self.server.state.snapshot(url.path))
        elif target.suffix == ".js":
            kind = "application/javascript"
        self._send(status, kind, body)

    def _live(self, query: dict[str, list[str]]) -> None:
        path = query.get("path", ["/"])[0]
        try:
            version, token = int(query["version"][0]), int(query["token"][0])
        except (KeyError, ValueError):
            answer = self.server.state.snapshot(path)
        else:
            answer = self.server.state.wait(path, version, token)
        self._send(200, "application/json", json.dumps(answer).encode())

    def _waiting(self, path: str) -> None:
        """No site yet (the first build, or it could not be built): say so, and reload when built."""
        state = self.server.state.snapshot(path)
        problems = "".join(f"<pre>{html.escape(p['text'])}</pre>" for p in state["problems"])
        page = WAITING_PAGE.format(title=html.escape(self.server.waiting_message), body=problems)
        self._send(503, "text/html; charset=utf-8", inject(page.encode(), path, state))

    def _redirect(self, location: str) -> None:
        self.send_response(302)
        self.send_header("Location", location)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def _send(self, status: int, kind: str, body: bytes) -> None:
        self.send_response(status)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Cache-Control", "no-store")
        self.end_headers()
        self.wfile.write(body)
