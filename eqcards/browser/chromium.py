"""The headless Chromium that the browser tests and the benchmark drive, and its flags, declared once."""

from __future__ import annotations

import shutil
from pathlib import Path

DEBIAN_CHROMIUM = "/usr/bin/chromium"
# No sandbox (containers have no user namespaces), no GPU, and nothing that phones home, so a
# visit costs only what the page itself asks for.
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync"]


# Where a macOS runner (or a Mac) keeps Chrome or Chromium: neither is on its PATH.
MACOS_BROWSERS = ("/Applications/Google Chrome.app/Contents/MacOS/Google Chrome",
                  "/Applications/Chromium.app/Contents/MacOS/Chromium")


def chromium_executable() -> str | None:
    """Debian's Chromium when installed (.ci/run installs it); else a Chrome or Chromium on PATH,
    as on hosted CI images without Debian's package, or in a Mac's Applications; else None,
    Playwright's own build."""
    if Path(DEBIAN_CHROMIUM).exists():
        return DEBIAN_CHROMIUM
    on_path = next(filter(None, map(shutil.which, ("chromium", "chromium-browser", "google-chrome"))), None)
    return on_path or next((p for p in MACOS_BROWSERS if Path(p).exists()), None)
