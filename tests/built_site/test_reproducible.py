"""Two builds of one commit, made on two different days, give the same site byte for byte.

The clock is really moved: each build runs under Debian's libfaketime (package `faketime`,
installed by .ci/run), which shifts the time every process of the build reads, Python's
datetime and time included. The whole output tree is compared, not a handful of files.
"""

from __future__ import annotations

import datetime as dt
import difflib
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import MKDOCS, ROOT, snapshot

from eqcards.core.config import FALLBACK_EDITION_DATE, edition_date

pytestmark = pytest.mark.build

# Debian's (.ci/run installs it) or, on a macOS runner, Homebrew's (the workflow installs it there).
LIBFAKETIME = sorted(Path("/usr/lib").glob("*/faketime/libfaketime.so.1")) or sorted(
    p for prefix in ("/opt/homebrew", "/usr/local")
    for p in Path(prefix, "lib", "faketime").glob("libfaketime*.dylib"))
# The other day lies in the past, in another year: the snippet cache sweeps temporary files by age,
# and a clock moved forward would make another build's fresh files look abandoned.
OTHER_DAY = -400


def clock_env(days: int) -> dict[str, str]:
    """The environment of a process that believes today is `days` from the real today."""
    if not LIBFAKETIME:
        pytest.fail("libfaketime is missing: `apt-get install faketime` (.ci/run installs it) "
                    "or, on macOS, `brew install libfaketime`")
    env = {k: v for k, v in os.environ.items() if k not in ("SOURCE_DATE_EPOCH", "FAKETIME")}
    # The monotonic clock moves with the wall clock (FAKETIME_DONT_FAKE_MONOTONIC would break
    # every sleep in libfaketime 0.9.10: EINVAL), so timeouts measure as they always do.
    preload = ({"LD_PRELOAD": str(LIBFAKETIME[0])} if LIBFAKETIME[0].suffix != ".dylib" else
               {"DYLD_INSERT_LIBRARIES": str(LIBFAKETIME[0]), "DYLD_FORCE_FLAT_NAMESPACE": "1"})
    return {**env, "NO_MKDOCS_2_WARNING": "1", **preload, "FAKETIME": f"{days:+d}d"}


def today_seen(env: dict[str, str]) -> dt.date:
    # It also sleeps and waits for a child, as a build does: both must work under the fake clock.
    probe = ("import datetime, subprocess, sys, time; time.sleep(0.01);"
             "subprocess.run([sys.executable, '-c', ''], check=True, timeout=60);"
             "print(datetime.date.today())")
    out = subprocess.run([sys.executable, "-c", probe], env=env, capture_output=True, text=True,
                         check=True).stdout
    return dt.date.fromisoformat(out.strip())


def first_difference(name: str, a: bytes | None, b: bytes | None) -> str:
    if a is None or b is None:
        return f"{name}: only in one build"
    try:
        diff = difflib.unified_diff(a.decode().splitlines(), b.decode().splitlines(), lineterm="", n=0)
        return f"{name}:\n" + "\n".join(list(diff)[2:8])
    except UnicodeDecodeError:
        return f"{name}: binary files differ"


def test_builds_on_two_different_days_are_byte_identical(built_site: Path, tmp_path: Path) -> None:
    """The session's build (today, shared with the other tests) against one made 400 days ago."""
    env = clock_env(OTHER_DAY)
    # The build really sees another day, not only a variable that our code honours.
    assert today_seen(env) == dt.date.today() + dt.timedelta(days=OTHER_DAY)
    site = tmp_path / f"site{OTHER_DAY:+d}"
    result = subprocess.run([str(MKDOCS), "build", "--strict", "--site-dir", str(site)], cwd=ROOT,
                            env=env, capture_output=True, text=True, timeout=900)
    assert result.returncode == 0, result.stdout + result.stderr
    sites = [snapshot(built_site), snapshot(site)]
    first, second = sites
    assert len(first) > 100
    differing = sorted(name for name in first.keys() | second.keys() if first.get(name) != second.get(name))
    assert differing == [], "\n".join(first_difference(n, first.get(n), second.get(n)) for n in differing[:5])
    # The one date in the output is the commit's, wherever a page is dated: the date each
    # citation was built on, and the sitemap's dates where there is one (a build with SITE_URL;
    # tests/test_reader_pages.py checks those of such a build).
    built_on = {m for name, data in first.items() if name.startswith("cards/") and name.endswith(".html")
                for m in re.findall(r'data-accessed="([^"]*)"', data.decode())}
    assert built_on == {edition_date(ROOT)}
    if "sitemap.xml" in first:
        lastmod = set(re.findall(r"<lastmod>([^<]*)</lastmod>", first["sitemap.xml"].decode()))
        assert lastmod == {edition_date(ROOT)}


def test_the_edition_date_comes_from_the_source(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """SOURCE_DATE_EPOCH wins; without it, the last commit's date (UTC); never the clock."""
    monkeypatch.delenv("SOURCE_DATE_EPOCH", raising=False)
    commit = subprocess.run(["git", "log", "-1", "--format=%ct"], cwd=ROOT, capture_output=True, text=True,
                            check=True).stdout.strip()
    assert edition_date(ROOT) == dt.datetime.fromtimestamp(int(commit), dt.UTC).date().isoformat()
    # No commit (a source archive): a fixed date, not today.
    assert edition_date(tmp_path) == FALLBACK_EDITION_DATE
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1000000000")
    assert edition_date(ROOT) == edition_date(tmp_path) == "2001-09-09"
