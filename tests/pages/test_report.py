"""The "Report a problem with this card" link: a pre-filled issue form where the site names its
repository, no link at all where it does not."""

from __future__ import annotations

from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import pytest
import yaml
from conftest import ROOT

from eqcards.core.config import Settings
from eqcards.pages.render import ISSUE_FORM
from eqcards.pages.site import CardSite

FORM = ROOT / ".github" / "ISSUE_TEMPLATE" / ISSUE_FORM
REPO = "https://github.com/example-org/equation-cards"
LINK_TEXT = "Report a problem with this card"


@pytest.fixture(scope="module")
def site(built_site: Path) -> CardSite:
    """The real cards, loaded once the test run's build has typeset their formulas: loading them
    beside a cold build typesets every formula twice at once."""
    return CardSite.load(Settings.for_project(ROOT))


def report_url(page: str) -> str:
    start = page.index(f"[{LINK_TEXT}](") + len(LINK_TEXT) + 3
    return page[start:page.index(")", start)]


def test_with_a_repository_every_card_links_to_its_prefilled_form(site: CardSite) -> None:
    site.repo_url = REPO + "/"
    try:
        for card in site.cards:
            parts = urlsplit(report_url(site.card_page(card.id)))
            assert f"{parts.scheme}://{parts.netloc}{parts.path}" == REPO + "/issues/new", card.id
            query = parse_qs(parts.query, strict_parsing=True)
            assert query == {"template": [ISSUE_FORM], "card": [card.id], "title": [f"Card {card.id}: "]}
    finally:
        site.repo_url = None


def test_without_a_repository_there_is_no_link(site: CardSite) -> None:
    site.repo_url = None
    assert not any(LINK_TEXT in site.card_page(c.id) for c in site.cards)


def test_no_built_page_carries_a_report_link_when_no_repository_is_set(built_site: Path) -> None:
    pages = list((built_site / "cards").glob("*/index.html"))
    assert pages and not any(LINK_TEXT in p.read_text(encoding="utf-8") for p in pages)


def test_the_form_has_the_fields_the_link_fills_and_a_reader_needs() -> None:
    form = yaml.safe_load(FORM.read_text(encoding="utf-8"))
    assert {"name", "description", "body"} <= form.keys()
    fields = {item["id"]: item for item in form["body"] if item["type"] != "markdown"}
    # The link fills `card`; the reader says what is wrong, the correct form and a source.
    assert list(fields) == ["card", "problem", "correction", "source"]
    assert fields["card"]["type"] == "input" and fields["card"]["validations"]["required"]
    assert fields["problem"]["type"] == "textarea" and fields["problem"]["validations"]["required"]
    for item in form["body"]:
        assert item["attributes"].get("label") or item["type"] == "markdown"
