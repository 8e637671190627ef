"""What a search downloads: the worker's loader (search-loader.js) run in QuickJS over a built index.

The tests use it to hold the first download of each query to its budget and to check that the
pieces loaded rank exactly as the whole index would; `make bench` reports the same bytes.
"""

from __future__ import annotations

import gzip
import json
from functools import lru_cache
from pathlib import Path
from typing import Any

import quickjs

from .search_index import ENGINE_DIR, ENGINE_FILES

LOADER_FILE = "search-loader.js"
SETTINGS_FILE = "search_index.json"  # the theme fetches it on every page; the first query needs it too


def gzipped(data: bytes) -> int:
    """Bytes a server sends for `data` gzipped at the common level (6)."""
    return len(gzip.compress(data, 6))


class LoadedSearch:
    """The site's search as the worker runs it: the loader fetches files from `search_dir`
    (each read once, as the worker caches them) and every file it reads is counted."""

    def __init__(self, search_dir: Path) -> None:
        self.search_dir = search_dir
        self.fetched: list[str] = []
        self.context = quickjs.Context()
        for name in (*ENGINE_FILES, LOADER_FILE):
            self.context.eval((ENGINE_DIR / name).read_text(encoding="utf-8"))
        self.context.add_callable("readSearchFile", self._read)
        config = json.loads((search_dir / SETTINGS_FILE).read_text(encoding="utf-8"))["config"]
        self.context.eval(f"globalThis.LOADER = EqLoader.create({json.dumps(config)}, "
                          "(path) => Promise.resolve(JSON.parse(readSearchFile(path))))")

    def _read(self, path: str) -> str:
        self.fetched.append(path)
        return (self.search_dir / path).read_text(encoding="utf-8")

    def search(self, query: str) -> list[dict[str, Any]]:
        """The results the worker would show for `query`, after loading what it needs."""
        self.context.eval("globalThis.ANSWER = null;")
        self.context.eval(f"LOADER.search({json.dumps(query, ensure_ascii=False)}).then("
                          "(r) => { ANSWER = JSON.stringify({results: r}); },"
                          "(e) => { ANSWER = JSON.stringify({error: String(e)}); });")
        while self.context.execute_pending_job():
            pass
        answer = json.loads(self.context.eval("ANSWER"))
        if "error" in answer:
            raise RuntimeError(f"search {query!r}: {answer['error']}")
        return answer["results"]

    def prefetch(self) -> None:
        """What the worker fetches after its first answer (every result record), as it does."""
        self.context.eval("LOADER.prefetch();")
        while self.context.execute_pending_job():
            pass

    def downloaded(self) -> int:
        """Gzipped bytes of every file fetched so far, the settings included."""
        names = [SETTINGS_FILE, *self.fetched]
        return sum(_gzipped_file(self.search_dir / name) for name in names)


def _gzipped_file(path: Path) -> int:
    """`gzipped` of a file, remembered while the file is unchanged: the tests measure hundreds of
    queries, and every one of them downloads the same vocabulary."""
    stat = path.stat()
    return _gzipped_version(path, stat.st_mtime_ns, stat.st_size)


@lru_cache(maxsize=4096)
def _gzipped_version(path: Path, mtime_ns: int, size: int) -> int:
    return gzipped(path.read_bytes())


def first_download(search_dir: Path, query: str) -> tuple[int, list[str]]:
    """Gzipped bytes a visit's first query downloads before its results show, and the files."""
    loaded = LoadedSearch(search_dir)
    loaded.search(query)
    return loaded.downloaded(), loaded.fetched
