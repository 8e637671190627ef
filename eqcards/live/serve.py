"""`make serve` (python -m eqcards.live.serve): build once, then per saved file rebuild only what it changed.

A saved card (`docs/cards/<id>.md`) or card snippet is taken in alone (eqcards/live/livesite.py: parse,
check, re-run the snippet if its content changed) and its page rebuilt and reloaded at once
(eqcards/live/livebuild.py). Then, a moment later and page by page, the pages that show every card
(cheatsheets, topic and part pages, symbols, coverage, the home page, neighbouring cards) are
compared with what they were built from and rebuilt where they differ, and the search index and
cards.json are written again; meanwhile every open page says that this is going on
(eqcards/live/devserver.py). Any other file (topics, numbers, mkdocs.yml, the theme, a helper module
of the snippets) rebuilds the whole site, as `mkdocs serve` would. A problem never stops the
server: it is shown on its page and in the terminal with its file and line, and saving the fix
brings the page back.
"""

from __future__ import annotations

import argparse
import gc
import logging
import shutil
import signal
import sys
import tempfile
import threading
import time
from collections.abc import Iterable
from pathlib import Path

from mkdocs.config import load_config
from watchdog.events import FileSystemEvent, FileSystemEventHandler
from watchdog.observers import Observer

from ..core.config import Settings
from .devserver import LiveServer, LiveState
from .livebuild import LiveBuild, NeedsFullBuild, page_url
from .livesite import SITE, LiveSite, Problem

log = logging.getLogger("eqcards.serve")
WRITES = ("created", "modified", "moved", "deleted", "closed")  # not "opened", "closed_no_write"
QUIET_SECONDS = 0.05  # a save is taken once the files have been quiet this long ...
MOST_SECONDS = 0.5  # ... or this long after its first event, whichever comes first


def ignored(path: Path) -> bool:
    """Editor droppings and caches: swap and backup files, dot files, __pycache__."""
    return (path.name.startswith(".") or "__pycache__" in path.parts
            or path.name.endswith(("~", ".swp", ".swx", ".tmp")) or path.name == "4913")


def classify(paths: Iterable[Path], settings: Settings,
             live: LiveSite) -> tuple[set[Path], set[Path], set[Path]]:
    """Saved files as (card files, card snippets, anything else: the whole site is rebuilt)."""
    cards, snippets, other = set(), set(), set()
    for path in paths:
        if path.parent == settings.cards_dir and path.suffix == ".md":
            cards.add(path)
        elif path.parent == settings.snippets_dir and path.suffix == ".py":
            if (settings.cards_dir / f"{path.stem}.md").is_file() or live.card_for_snippet(path):
                snippets.add(path)
            # else: a snippet that no card names yet; the card that will is saved then
        elif path.parent == settings.helpers_dir and path.suffix == ".py":
            if path in live.helpers:  # cardcheck, cardplot ...: every snippet may import it
                other.add(path)
            # else: a new module that no snippet imports yet; the snippet that will is saved then
        elif path.exists() or path.suffix in (".md", ".yml", ".py"):
            other.add(path)
        # else: an editor's temporary file, renamed over the file it saved
    return cards, snippets, other


class Watcher(FileSystemEventHandler):
    """The files saved under some folders (and some single files), collected as the operating
    system reports them."""

    def __init__(self, folders: Iterable[Path], files: Iterable[Path] = ()) -> None:
        self._cond = threading.Condition()
        self._paths: set[Path] = set()
        self.folders = [f.resolve() for f in folders if f.is_dir()]
        self.files = {f.resolve() for f in files}
        self._observer = Observer()
        for folder in dict.fromkeys(self.folders):
            self._observer.schedule(self, str(folder), recursive=True)
        for parent in dict.fromkeys(f.parent for f in self.files):
            self._observer.schedule(self, str(parent), recursive=False)

    def start(self) -> None:
        self._observer.start()

    def stop(self) -> None:
        self._observer.stop()

    def on_any_event(self, event: FileSystemEvent) -> None:
        if event.is_directory or event.event_type not in WRITES:
            return
        found = set()
        for name in (event.src_path, getattr(event, "dest_path", "")):
            path = Path(str(name)) if name else None
            if path is None or ignored(path):
                continue
            if path in self.files or any(path.is_relative_to(f) for f in self.folders):
                found.add(path)
        if found:
            with self._cond:
                self._paths |= found
                self._cond.notify_all()

    def pending(self) -> bool:
        return bool(self._paths)

    def take(self, timeout: float | None) -> set[Path]:
        """The files saved since the last call, once they have been quiet for a moment; waits
        up to `timeout` seconds (None: for ever) for the first."""
        with self._cond:
            if not self._cond.wait_for(lambda: bool(self._paths), timeout):
                return set()
            first = time.monotonic()
            while time.monotonic() - first < MOST_SECONDS:
                count = len(self._paths)
                if not self._cond.wait_for(lambda count=count: len(self._paths) != count, QUIET_SECONDS):
                    break
            paths, self._paths = self._paths, set()
            return paths


class Session:
    """One `make serve`: the site in memory, its build, the HTTP server and the file watcher."""

    def __init__(self, config_file: Path, host: str = "127.0.0.1", port: int = 8000) -> None:
        self.config_file = config_file.resolve()
        root = self.config_file.parent
        config = load_config(config_file=str(self.config_file))
        self.settings = Settings.for_project(root, Path(config.docs_dir))
        self.lock = threading.Lock()
        self.state = LiveState()
        self.server = LiveServer((host, port), self.state, self.lock)
        self.live = LiveSite(self.settings)
        self.build = LiveBuild(self.config_file, self.live, self.server.url, self.lock)
        theme_dirs = [Path(config.theme.custom_dir)] if config.theme.custom_dir else []
        self.watcher = Watcher([self.settings.docs_dir, self.settings.snippets_dir, root / "seeds",
                                *theme_dirs, *(Path(w) for w in config.watch)], [self.config_file])
        self.nearby: set[str] = set()  # cards whose pages may still show an edited card's old state
        self.behind = False  # pages that show every card are not up to date yet
        self.broken = False  # the last update failed half-way: the next save rebuilds everything
        self.failure: list[Problem] = []  # why the last full build failed, if it did
        self._reported: set[str] = set()
        self._http: threading.Thread | None = None

    # -- running ----------------------------------------------------------------------------

    def start(self) -> None:
        """Listen at once (a page that asks before the first build is told to wait), build."""
        self._http = threading.Thread(target=self.server.serve_forever, daemon=True)
        self._http.start()
        log.info(f"Serving on {self.server.url}")
        self.watcher.start()
        self.full("first build")
        self.live.math.warm_up()

    def serve_forever(self) -> None:
        try:
            self.start()
            while True:
                self.step(timeout=0 if self.behind else None)
        except KeyboardInterrupt:
            log.info("Shutting down...")
        finally:
            self.close()

    def step(self, timeout: float | None) -> None:
        """Take in what was saved, then bring the other pages up to date."""
        saved = self.watcher.take(timeout)
        if saved:
            self.saved(saved)
        if self.behind and not self.watcher.pending():
            self.catch_up()

    def close(self) -> None:
        self.watcher.stop()
        if self._http is not None:
            self.server.shutdown()
        self.server.server_close()
        self.live.close()
        if self.server.root is not None:
            shutil.rmtree(self.server.root, ignore_errors=True)

    # -- updates ----------------------------------------------------------------------------

    def full(self, why: str) -> None:
        """Load and build everything into a new folder; serve it once built. A failure keeps
        serving what was built before, and says so on every page."""
        started = time.perf_counter()
        self.state.set_status(updating=f"the whole site ({why})")
        log.info(f"Building the whole site ({why}) ...")
        new = Path(tempfile.mkdtemp(prefix="eqcards-serve-"))
        self.failure = []
        gc.unfreeze()  # what the last full build left may go now
        try:
            self.live.load()
            if self.live.site is not None:
                self.build.full(new)
        except Exception as exc:
            log.exception("the site could not be built")
            self.failure = [Problem(SITE, f"the site could not be built: {exc}")]
        if self.live.site is None or self.failure:
            shutil.rmtree(new, ignore_errors=True)
            self.broken = True
            self.server.waiting_message = "The site cannot be built"
            self.state.set_status(updating="")
            self.publish()
            return
        with self.lock:
            old, self.server.root = self.server.root, new
        if old is not None:
            shutil.rmtree(old, ignore_errors=True)
        self.broken, self.behind, self.nearby = False, False, set()
        # Thousands of pages stay in memory; a full collection would walk them all, again and
        # again, in the middle of an edit's rebuild. Frozen, they are skipped.
        gc.collect()
        gc.freeze()
        self.state.set_status(updating="", pending=[])
        self.state.changed(None)
        self.publish()
        log.info(f"Site built in {time.perf_counter() - started:.1f} s")

    def saved(self, paths: set[Path]) -> None:
        """Files were saved: the edited cards' pages now, or everything when it has to be."""
        settings = self.settings
        cards, snippets, other = classify(paths, settings, self.live)
        if not (cards or snippets or other):
            return
        if self.broken or other or self.live.site is None:
            names = sorted(str(p.relative_to(settings.root)) if p.is_relative_to(settings.root) else str(p)
                           for p in other)
            return self.full(", ".join(names[:3]) + (" ..." if len(names) > 3 else "") or "after a problem")
        started = time.perf_counter()
        names = sorted(str(p.relative_to(settings.root)) for p in cards | snippets)
        pending = [f"/cards/{p.stem}/" for p in cards] + [f"/cards/{p.stem}/" for p in snippets]
        self.state.set_status(updating="pages that show every card, and search", pending=pending)
        ran: list[bool] = []
        try:
            edit = self.live.update(cards, snippets)
            self.build.edited(edit, before=lambda uri: ran.append(self.live.run(Path(uri).stem)),
                              done=lambda url: self.state.changed([url]))
        except Exception as exc:
            log.exception("the update failed; rebuilding everything")
            self.broken = True
            return self.full(f"after an error: {exc}")
        self.nearby |= edit.nearby
        self.behind = True
        self.publish()
        pages = f"{len(edit.pages)} pages" if len(edit.pages) > 1 else "page"
        runs = f", {sum(ran)} snippet{'s' if sum(ran) > 1 else ''} run" if any(ran) else ""
        log.info(f"{', '.join(names)}: {pages} rebuilt in {time.perf_counter() - started:.2f} s{runs}")

    def catch_up(self) -> None:
        """Rebuild, page by page, what still shows the old state; stop for a new save."""
        started = time.perf_counter()
        try:
            pages = self.build.stale(self.nearby)
            urls = [page_url(p.file) for p in pages]
            what = f"{len(pages)} page{'s' if len(pages) != 1 else ''} that show every card, and search"
            self.state.set_status(updating=what, pending=urls)
            if not self.build.rebuild(pages, stop=self.watcher.pending,
                                      done=lambda url: self.state.changed([url])):
                return  # a new save first; this is picked up again after it
            self.build.finish()
        except NeedsFullBuild as why:
            return self.full(str(why))
        except Exception as exc:
            log.exception("updating the other pages failed; rebuilding everything")
            return self.full(f"after an error: {exc}")
        self.behind, self.nearby = False, set()
        self.state.set_status(updating="", pending=[])
        self.publish()
        log.info(f"Other pages up to date ({len(pages)} rebuilt, search and cards.json written) "
                 f"in {time.perf_counter() - started:.2f} s")

    def publish(self) -> None:
        """Every problem to the open pages; new ones (and fixed ones) to the terminal."""
        problems = list(dict.fromkeys(self.failure + self.live.problems() + self.build.problems()))
        shown: list[tuple[str, str]] = []
        for problem in problems:
            files = self.build.files
            file = files.get_file_from_path(problem.page) if files is not None and problem.page else None
            shown.append((page_url(file) if file is not None else "", problem.text))
        self.state.set_status(problems=shown)
        texts = {p.text for p in problems}
        for text in sorted(texts - self._reported):
            log.error(text)
        for text in sorted(self._reported - texts):
            log.info(f"fixed: {text.splitlines()[0]}")
        self._reported = texts


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("-a", "--dev-addr", default="127.0.0.1:8000", help="host:port to serve on")
    parser.add_argument("-f", "--config-file", default="mkdocs.yml", type=Path)
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(levelname)-7s -  %(message)s")
    # Stopped by a signal (a terminal closed, the benchmark done), still tidy up: the built site
    # in the temporary folder, the snippet server.
    signal.signal(signal.SIGTERM, lambda signum, frame: sys.exit(0))
    host, _, port = args.dev_addr.rpartition(":")
    Session(args.config_file, host or "127.0.0.1", int(port)).serve_forever()


if __name__ == "__main__":
    main()
