"""`make serve`: an edit rebuilds its card's page at once and the rest a moment later, problems show
on their page and in the terminal, the fix recovers, and the served site ends up as a build makes it."""

from __future__ import annotations

import json
import logging
import os
import re
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest
from conftest import GOOD_SNIPPET, Project, card_markdown, snapshot

from eqcards.cards.load import parse_card
from eqcards.core.config import Settings
from eqcards.live.devserver import LiveState, canonical, inject
from eqcards.live.livesite import LiveSite, _nearby
from eqcards.live.serve import Session, classify, ignored
from eqcards.pages.search_index import read_documents

pytestmark = pytest.mark.build

FAILING_SNIPPET = GOOD_SNIPPET.replace("1.5)", "1.75)")  # the check on line 5 fails


def fetch(url: str) -> tuple[int, str]:
    try:
        with urllib.request.urlopen(url, timeout=30) as answer:
            return answer.status, answer.read().decode()
    except urllib.error.HTTPError as error:
        return error.code, error.read().decode()


def live(base: str, path: str) -> dict:
    return json.loads(fetch(f"{base}.eqcards/live?path={path}")[1])


@pytest.fixture
def serving(project: Project):
    """A project of three cards (b relates to a) served by a session driven step by step."""
    project.add_card("toy-a", title="Toy A")
    project.add_card("toy-b", title="Toy B", related=["toy-a"])
    project.add_card("toy-c", title="Toy C")
    session = Session(project.root / "mkdocs.yml", port=0)
    session.start()
    yield project, session
    session.close()


def settle(session: Session, expect_change: bool = True) -> None:
    """Let the session take in what was saved, then catch up with the other pages."""
    if expect_change:
        deadline = time.monotonic() + 20
        while not session.watcher.pending() and time.monotonic() < deadline:
            time.sleep(0.02)
        assert session.watcher.pending(), "the watcher saw no change"
    session.step(timeout=5)
    while session.behind:
        session.step(timeout=0)


def edit(path: Path, old: str, new: str) -> None:
    text = path.read_text(encoding="utf-8")
    assert old in text
    path.write_text(text.replace(old, new, 1), encoding="utf-8")


def test_an_edit_rebuilds_its_page_first_then_the_pages_that_list_it(serving) -> None:
    project, session = serving
    base = session.server.url
    assert "Toy A" in fetch(base + "cards/toy-a/")[1]
    before = {path: live(base, path)["version"] for path in ("/cards/toy-a/", "/cards/toy-b/",
                                                             "/cards/toy-c/", "/topics/information-theory/")}
    edit(project.root / "docs/cards/toy-a.md", "title: Toy A", "title: Toy Alpha")
    deadline = time.monotonic() + 20
    while not session.watcher.pending() and time.monotonic() < deadline:
        time.sleep(0.02)
    session.saved(session.watcher.take(5))
    # The card's own page first, alone; the topic page and the card relating to it are marked.
    assert "Toy Alpha" in fetch(base + "cards/toy-a/")[1]
    assert live(base, "/cards/toy-a/")["version"] > before["/cards/toy-a/"]
    assert live(base, "/cards/toy-c/")["version"] == before["/cards/toy-c/"]
    assert "Toy Alpha" not in fetch(base + "topics/information-theory/")[1]
    assert live(base, "/")["updating"]
    # Then the rest: pages that showed the old title, and nothing else.
    session.catch_up()
    assert not live(base, "/")["updating"]
    assert "Toy Alpha" in fetch(base + "topics/information-theory/")[1]
    assert "Toy Alpha" in fetch(base + "cards/toy-b/")[1]  # its related card
    assert live(base, "/cards/toy-c/")["version"] == before["/cards/toy-c/"]
    search = session.server.root / "search"
    assert "Toy Alpha" in [d["title"] for d in read_documents(search, json.loads(
        (search / "search_index.json").read_text())["config"])]
    assert "Toy Alpha" in (session.server.root / "cards.json").read_text()


def test_a_snippet_edit_runs_it_again(serving) -> None:
    project, session = serving
    base = session.server.url
    edit(project.root / "snippets/toy-a.py", "check_close(", 'print("edited run")\ncheck_close(')
    settle(session)
    assert "edited run" in fetch(base + "cards/toy-a/")[1]
    assert "edited run" not in fetch(base + "cards/toy-c/")[1]


@pytest.mark.parametrize("break_it, where", [
    # broken front matter: an unclosed list
    (lambda p: edit(p.root / "docs/cards/toy-a.md", "title: Toy A", "title: [Toy A"),
     r"docs/cards/toy-a\.md:\d+: front matter is not valid YAML"),
    # a failing check
    (lambda p: (p.root / "snippets/toy-a.py").write_text(FAILING_SNIPPET),
     r"snippets/toy-a\.py:5 failed"),
    # a formula that does not typeset
    (lambda p: edit(p.root / "docs/cards/toy-a.md", "\\log P(x)", "\\log P(x) \\frac{"),
     r"docs/cards/toy-a\.md:\d+: LaTeX in equation does not typeset"),
], ids=["front-matter", "snippet", "latex"])
def test_a_problem_shows_on_its_page_and_in_the_terminal_and_the_fix_recovers(
        serving, caplog: pytest.LogCaptureFixture, break_it, where: str) -> None:
    project, session = serving
    base = session.server.url
    card = (project.root / "docs/cards/toy-a.md").read_text()
    snippet = (project.root / "snippets/toy-a.py").read_text()
    caplog.set_level(logging.INFO, logger="eqcards.serve")
    break_it(project)
    settle(session)
    status, page = fetch(base + "cards/toy-a/")
    assert status == 200 and 'id="eqcards-serve-problems"' in page
    assert re.search(where, page), page[:3000]
    assert any(re.search(where, r.getMessage()) and r.levelno == logging.ERROR for r in caplog.records)
    shown = live(base, "/")["problems"]  # every open page lists it, linked to its page
    assert any(re.search(where, p["text"]) and p["page"] == "/cards/toy-a/" for p in shown)
    assert "Toy C" in fetch(base + "cards/toy-c/")[1]  # the rest of the site is served as before
    (project.root / "docs/cards/toy-a.md").write_text(card)
    (project.root / "snippets/toy-a.py").write_text(snippet)
    settle(session)
    status, page = fetch(base + "cards/toy-a/")
    assert status == 200 and 'id="eqcards-serve-problems"' not in page and "Verified: 1 check passed" in page
    assert live(base, "/")["problems"] == []
    assert any(r.getMessage().startswith("fixed: ") for r in caplog.records)


def test_a_new_card_and_a_deleted_one(serving) -> None:
    project, session = serving
    base = session.server.url
    project.add_card("toy-d", title="Toy D")
    settle(session)
    assert "Toy D" in fetch(base + "cards/toy-d/")[1]
    assert "Toy D" in fetch(base + "topics/information-theory/")[1]
    assert "cards/toy-d/" in (session.server.root / "sitemap.xml").read_text()
    (project.root / "docs/cards/toy-a.md").unlink()
    settle(session)
    assert fetch(base + "cards/toy-a/")[0] == 404
    page = fetch(base + "cards/toy-b/")[1]  # it relates to the deleted card
    assert "related card &#x27;toy-a&#x27; does not exist" in page


def test_the_served_site_is_what_a_build_makes_after_any_edits(serving, tmp_path: Path) -> None:
    project, session = serving
    edit(project.root / "docs/cards/toy-a.md", "title: Toy A", "title: Zeta toy")  # now last in its topic
    settle(session)
    (project.root / "snippets/toy-c.py").write_text(FAILING_SNIPPET)
    settle(session)
    (project.root / "snippets/toy-c.py").write_text(GOOD_SNIPPET.replace("[0, 1], [0, 1]", "[0, 1], [1, 0]"))
    settle(session)
    project.add_card("toy-d", title="Toy D", related=["toy-b"])
    settle(session)
    edit(project.root / "docs/cards/toy-b.md", "Some prose", "Other prose")
    settle(session)
    (project.root / "docs/cards/toy-d.md").unlink()
    settle(session)
    helper = project.root / "snippets/lib/cardcheck.py"  # every snippet imports it: all of them run again
    helper.write_text(helper.read_text() + "\n# edited\n")
    settle(session)
    out = tmp_path / "built"
    done = project.build("--site-dir", str(out), env={"SITE_URL": session.server.url})
    assert done.returncode == 0, done.stderr
    assert snapshot(session.server.root) == snapshot(out)


def test_a_topics_file_that_does_not_load_keeps_the_site_and_says_why(serving) -> None:
    project, session = serving
    base = session.server.url
    topics = project.root / "docs/topics.yml"
    good = topics.read_text()
    topics.write_text(good + "\n  - [unclosed\n")
    settle(session)
    assert "Toy A" in fetch(base + "cards/toy-a/")[1]
    assert any("topics.yml" in p["text"] for p in live(base, "/")["problems"])
    topics.write_text(good)
    settle(session)
    assert live(base, "/")["problems"] == []


def test_pages_reload_only_when_they_changed() -> None:
    state = LiveState()
    page = state.snapshot("/cards/x/")
    other = state.snapshot("/cards/y/")
    state.changed(["/cards/x/index.html"])
    assert state.wait("/cards/x/", page["version"], page["token"], timeout=1)["reload"]
    answer = state.wait("/cards/y/", other["version"], other["token"], timeout=1)
    assert not answer["reload"]  # told of the status change, not reloaded
    state.set_status(pending=["/cards/y/"])
    assert state.wait("/cards/y/", other["version"], answer["token"], timeout=1)["pending"]
    state.changed(None)
    assert state.wait("/cards/y/", other["version"], answer["token"], timeout=1)["reload"]


def test_url_paths_and_the_injected_script() -> None:
    assert canonical("/cards/x/index.html") == canonical("/cards/x") == "/cards/x/"
    assert canonical("/") == canonical("") == canonical("/index.html") == "/"
    assert canonical("/search/search_index.json") == "/search/search_index.json"
    page = inject(b"<html><body><p>x</p></body></html>", "/cards/x/", {"version": 1})
    assert page.startswith(b"<html><body><p>x</p><script>") and page.endswith(b"</script></body></html>")
    assert ignored(Path("docs/cards/.x.md.swp")) and ignored(Path("snippets/__pycache__/a.pyc"))
    assert not ignored(Path("docs/cards/x.md"))


def test_which_cards_an_edit_reaches() -> None:
    def card(card_id: str, title: str, **changes: object):
        return parse_card(Path(f"{card_id}.md"), card_markdown(id=card_id, title=title, **changes))

    before = [card("a", "Alpha"), card("b", "Beta", related=["a"]), card("c", "Gamma"), card("d", "Delta"),
              card("e", "Epsilon", topic="other")]
    prose = [before[0].__class__(**{**vars(before[0]), "body": "New prose."}), *before[1:]]
    assert _nearby("a", before, prose) == set()  # nothing another page shows of it changed
    renamed = [card("a", "Omega"), *before[1:]]  # moves from first to last in its topic
    assert _nearby("a", before, renamed) == {"b", "c"}  # old next, new previous; b relates to it
    assert _nearby("e", before, [*before[:4], card("e", "Epsilon", topic="other", related=["d"])]) == {"d"}
    assert _nearby("c", before, [c for c in before if c.id != "c"]) == {"d"}  # deleted: its old neighbour


def test_saved_files_sorted_into_cards_snippets_and_the_rest(project: Project) -> None:
    project.add_card("toy-a")
    settings = Settings.for_project(project.root)
    live = LiveSite(settings)
    live.helpers = {settings.helpers_dir / "cardcheck.py"}
    root = settings.root
    cards, snippets, other = classify([root / "docs/cards/toy-a.md", root / "docs/cards/gone.md",
                                       root / "snippets/toy-a.py", root / "snippets/lib/cardcheck.py",
                                       root / "snippets/lib/new_helper.py", root / "snippets/no-card.py",
                                       root / "docs/topics.yml", root / "docs/cards/sedX4fq"], settings, live)
    assert cards == {root / "docs/cards/toy-a.md", root / "docs/cards/gone.md"}
    assert snippets == {root / "snippets/toy-a.py"}
    assert other == {root / "snippets/lib/cardcheck.py", root / "docs/topics.yml"}


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_make_serve_keeps_running_through_a_broken_card(project: Project) -> None:
    """The command itself, as `make serve` runs it: the terminal names the file and line."""
    project.add_card("toy-a", title="Toy A")
    port = free_port()
    base = f"http://127.0.0.1:{port}/"
    log = project.root / "serve.log"
    with log.open("w") as out:
        server = subprocess.Popen([sys.executable, "-m", "eqcards.live.serve", "-a", f"127.0.0.1:{port}"],
                                  cwd=project.root, stdout=out, stderr=subprocess.STDOUT,
                                  env={**os.environ, "EQCARDS_CACHE_DIR": str(project.cache)})
    try:
        def wait_for(condition, what: str) -> None:
            deadline = time.monotonic() + 180
            while time.monotonic() < deadline:
                try:
                    if condition():
                        return
                except (OSError, ValueError):
                    pass
                time.sleep(0.1)
            raise AssertionError(f"{what}; log:\n{log.read_text()}")

        wait_for(lambda: live(base, "/")["ready"], "never ready")
        card = project.root / "docs/cards/toy-a.md"
        good = card.read_text()
        card.write_text(card_markdown(id="toy-a", snippet="toy-a.py", related=["no-such-card"]))
        wait_for(lambda: live(base, "/cards/toy-a/")["problems"], "the problem never showed")
        named = r"docs/cards/toy-a\.md:\d+: related card 'no-such-card' does not exist"
        assert re.search(named, log.read_text())
        assert "does not exist" in fetch(base + "cards/toy-a/")[1]
        card.write_text(good.replace("Some prose", "Fixed prose"))
        wait_for(lambda: "Fixed prose" in fetch(base + "cards/toy-a/")[1], "the fix never showed")
        assert live(base, "/")["problems"] == [] and server.poll() is None
    finally:
        server.terminate()
        server.wait(timeout=30)
