"""A content-addressed store of successful snippet results, written atomically and verified on read."""

from __future__ import annotations

import hashlib
import json
import time
from pathlib import Path
from typing import Any

from ..core.files import write_atomically


class ResultCache:
    """One JSON file per cache key. Failures are never stored, so they always re-run."""

    def __init__(self, directory: Path) -> None:
        self.directory = directory

    def sweep(self, older_than: float = 3600.0) -> int:
        """Delete temporary files that a killed build left behind; returns how many. Only old
        ones: a fresh one may belong to a build that is writing right now (`mkdocs serve`)."""
        removed = 0
        cutoff = time.time() - older_than
        for tmp in self.directory.glob("*/.tmp-*"):
            try:
                if tmp.stat().st_mtime < cutoff:
                    tmp.unlink()
                    removed += 1
            except OSError:
                continue  # gone already, or not ours to remove
        return removed

    def _path(self, key: str) -> Path:
        return self.directory / key[:2] / f"{key}.json"

    def get(self, key: str) -> dict[str, Any] | None:
        """The stored payload, or None when absent, unreadable or not matching its checksum."""
        try:
            envelope = json.loads(self._path(key).read_text(encoding="utf-8"))
            payload = envelope["payload"]
            if envelope.get("key") != key or envelope.get("sha256") != _checksum(payload):
                return None
            return payload
        except (OSError, ValueError, KeyError, TypeError):
            return None

    def put(self, key: str, payload: dict[str, Any]) -> None:
        """Write to a temporary file in the same folder, then rename: readers never see half a file."""
        envelope = {"key": key, "sha256": _checksum(payload), "payload": payload}
        write_atomically(self._path(key), json.dumps(envelope, sort_keys=True), prefix=".tmp-")


def _checksum(payload: Any) -> str:
    return hashlib.sha256(json.dumps(payload, sort_keys=True).encode()).hexdigest()
