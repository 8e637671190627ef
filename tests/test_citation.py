"""Citing a card: BibTeX and plain text, Highwire tags, and redirects from former ids."""

from __future__ import annotations

import re
from pathlib import Path

from conftest import Project, card_markdown
from playwright.sync_api import Browser

from eqcards.cards import parse_card
from eqcards.citation import Edition, bibtex, highwire_meta, plain_citation, redirect_page
from eqcards.localserve import serve

EDITION = Edition("Equation Cards", "https://cards.example.org/", "2026-11-30")


def toy(tmp_path: Path, **changes: object):
    path = tmp_path / f"{changes.get('id', 'toy-entropy')}.md"
    path.write_text(card_markdown(**changes), encoding="utf-8")
    return parse_card(path)


def test_bibtex_entry_has_permanent_url_version_and_urldate(tmp_path: Path) -> None:
    entry = bibtex(toy(tmp_path, title="Entropy & friends_1"), EDITION)
    assert entry.startswith("@misc{eqcards:toy-entropy,\n")
    assert "title = {{Entropy \\& friends\\_1}}" in entry
    assert "url = {https://cards.example.org/cards/toy-entropy/}" in entry
    assert "urldate = {2026-11-30}" in entry and "year = {2026}" in entry
    assert entry.count("{") == entry.count("}")


def test_plain_citation_and_meta(tmp_path: Path) -> None:
    card = toy(tmp_path)
    assert plain_citation(card, EDITION).endswith(
        "https://cards.example.org/cards/toy-entropy/ (accessed 2026-11-30).")
    meta = highwire_meta(card, EDITION)
    assert meta["citation_title"] == "Toy entropy"
    assert meta["citation_publication_date"] == "2026/11/30"


def test_redirect_page_keeps_the_anchor() -> None:
    page = redirect_page("../new-id/", "https://cards.example.org/cards/new-id/")
    assert 'location.replace("../new-id/" + location.hash)' in page
    assert 'content="0; url=../new-id/"' in page


def test_built_card_has_cite_box_and_meta_tags(built_site: Path) -> None:
    html = (built_site / "cards" / "entropy" / "index.html").read_text()
    text = re.sub(r"<[^>]+>", "", html)  # code blocks are syntax-highlighted into spans
    assert "Cite this card" in text and "@misc{eqcards:entropy," in text
    for name in ("citation_title", "citation_author", "citation_publication_date", "citation_public_url"):
        assert re.search(rf'<meta name="{name}" content="[^"]+">', html), name
    assert (built_site / "CITATION.cff").read_text().startswith("cff-version:")


def test_renamed_card_keeps_its_old_url(project: Project, browser: Browser) -> None:
    project.add_card("toy-entropy")
    assert project.build().returncode == 0
    old = project.root / "docs" / "cards" / "toy-entropy.md"
    old.unlink()
    (project.root / "snippets" / "toy-entropy.py").rename(project.root / "snippets" / "toy-renamed.py")
    new = project.root / "docs" / "cards" / "toy-renamed.md"
    new.write_text(card_markdown(id="toy-renamed", snippet="toy-renamed.py", former_ids=["toy-entropy"]))
    result = project.build()
    assert result.returncode == 0, result.stderr
    redirect = (project.root / "site" / "cards" / "toy-entropy" / "index.html").read_text()
    assert 'url=../toy-renamed/"' in redirect
    assert (project.root / "site" / "cards" / "toy-renamed" / "index.html").is_file()
    # Follow the old link, anchor and all, in a real browser.
    with serve(project.root / "site") as base:
        page = browser.new_page()
        page.goto(base + "cards/toy-entropy/#equation")
        page.wait_for_url("**/cards/toy-renamed/#equation")
        assert page.locator("#equation .eqc-math").count() == 1
        page.close()
