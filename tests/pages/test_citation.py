"""Citing a card: BibTeX and plain text, Highwire tags, and redirects from former ids."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
import yaml
from conftest import ROOT, Project, card_markdown
from playwright.sync_api import Browser

from eqcards.browser.localserve import serve
from eqcards.cards.load import parse_card
from eqcards.cards.schema import DOI_PATTERN
from eqcards.pages.citation import Edition, bibtex, highwire_meta, plain_citation, redirect_page

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
    for name in ("citation_title", "citation_author", "citation_publication_date"):
        assert re.search(rf'<meta name="{name}" content="[^"]+">', html), name
    # The public URL and the canonical link come from SITE_URL, both or neither (none by default).
    canonical = re.search(r'<link rel="canonical" href="([^"]+)">', html)
    public = re.search(r'<meta name="citation_public_url" content="([^"]+)">', html)
    assert (canonical and canonical.group(1)) == (public and public.group(1))
    assert (built_site / "CITATION.cff").read_bytes() == (ROOT / "CITATION.cff").read_bytes()


# The Citation File Format 1.2.0 (https://citation-file-format.github.io/), the parts of its
# schema that a citation of the site can use: required keys, and each key's type.
CFF_REQUIRED = ("cff-version", "message", "title", "authors")
CFF_TYPES = ["dataset", "software"]
DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")
URL = re.compile(r"^(https|http|ftp|sftp)://.+")
PERSON_KEYS = {"family-names", "given-names", "name-particle", "name-suffix", "affiliation", "address",
               "city", "region", "post-code", "country", "email", "orcid", "tel", "fax", "website",
               "alias"}
ENTITY_KEYS = {"name", "address", "city", "region", "post-code", "country", "email", "orcid", "tel",
               "fax", "website", "alias", "location", "date-start", "date-end"}


def nonempty_text(value: Any) -> bool:
    return isinstance(value, str) and value.strip() != ""


CFF_FIELDS = {
    "cff-version": lambda v: v == "1.2.0",
    "message": nonempty_text,
    "title": nonempty_text,
    "authors": lambda v: isinstance(v, list) and len(v) > 0,
    "abstract": nonempty_text,
    "type": lambda v: v in CFF_TYPES,
    "keywords": lambda v: isinstance(v, list) and v and all(nonempty_text(k) for k in v),
    "url": lambda v: isinstance(v, str) and bool(URL.match(v)),
    "repository-code": lambda v: isinstance(v, str) and bool(URL.match(v)),
    "license": lambda v: nonempty_text(v) or (isinstance(v, list) and all(nonempty_text(x) for x in v)),
    "version": lambda v: isinstance(v, str | int | float),
    "date-released": lambda v: DATE.match(str(v)) is not None,
    "doi": lambda v: isinstance(v, str) and re.match(DOI_PATTERN, v) is not None,
    "commit": nonempty_text,
    "contact": lambda v: isinstance(v, list) and len(v) > 0,
}


def cff_problems(text: str) -> list[str]:
    """What makes a CITATION.cff invalid under CFF 1.2.0 (for the keys in CFF_FIELDS)."""
    data = yaml.safe_load(text)
    if not isinstance(data, dict):
        return ["not a YAML mapping"]
    problems = [f"missing required key '{key}'" for key in CFF_REQUIRED if key not in data]
    for key, value in data.items():
        check = CFF_FIELDS.get(key)
        if check is None:
            problems.append(f"unknown key '{key}'")
        elif not check(value):
            problems.append(f"'{key}' has the wrong type or form: {value!r}")
    for i, author in enumerate(data.get("authors") or []):
        if not isinstance(author, dict):
            problems.append(f"author {i} is not a mapping")
        elif "name" in author:  # an entity
            if not nonempty_text(author["name"]) or set(author) - ENTITY_KEYS:
                problems.append(f"author {i}: an entity needs a name and only entity keys")
        elif not (nonempty_text(author.get("family-names")) and nonempty_text(author.get("given-names"))):
            problems.append(f"author {i}: a person needs family-names and given-names")
        elif set(author) - PERSON_KEYS:
            problems.append(f"author {i}: unknown keys {sorted(set(author) - PERSON_KEYS)}")
    return problems


def test_citation_cff_is_valid_cff_1_2_0() -> None:
    assert cff_problems((ROOT / "CITATION.cff").read_text(encoding="utf-8")) == []


VALID_CFF = ('cff-version: 1.2.0\nmessage: "Cite this."\ntitle: "T"\ntype: dataset\n'
             'authors:\n  - family-names: Shannon\n    given-names: Claude\n  - name: "A team"\n'
             'keywords: [a, b]\n')


@pytest.mark.parametrize(("broken", "problem"), [
    (VALID_CFF.replace('message: "Cite this."\n', ""), "missing required key 'message'"),
    (VALID_CFF.replace('title: "T"\n', ""), "missing required key 'title'"),
    (VALID_CFF.replace("cff-version: 1.2.0", "cff-version: 1.1.0"), "'cff-version'"),
    (VALID_CFF.replace("type: dataset", "type: website"), "'type'"),
    (VALID_CFF.replace("keywords: [a, b]", "keywords: a, b"), "'keywords'"),
    (VALID_CFF.replace("    given-names: Claude\n", ""), "a person needs family-names and given-names"),
    (VALID_CFF.replace('  - name: "A team"\n', '  - nmae: "A team"\n'),
     "a person needs family-names and given-names"),
    (VALID_CFF + "authors-extra: x\n", "unknown key 'authors-extra'"),
    (VALID_CFF.replace("authors:\n  - family-names: Shannon\n    given-names: Claude\n  - name: \"A team\"\n",
                       "authors: []\n"), "'authors'"),
])
def test_the_cff_check_rejects_what_the_schema_rejects(broken: str, problem: str) -> None:
    assert cff_problems(VALID_CFF) == []
    assert any(problem in found for found in cff_problems(broken)), cff_problems(broken)


def test_every_test_that_drives_a_browser_is_marked_browser(request: pytest.FixtureRequest) -> None:
    """`-m "not browser"` must leave out every test that needs Chromium (of those collected)."""
    unmarked = [item.nodeid for item in request.session.items
                if {"browser", "visit", "base_url"} & set(getattr(item, "fixturenames", ()))
                and item.get_closest_marker("browser") is None]
    assert unmarked == []


@pytest.mark.build
@pytest.mark.browser
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
