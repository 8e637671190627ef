"""Releases and card history: what each release holds, what changed in which, and the rule that a
changed equation, symbol meaning or source carries a history entry (eqcards/cards/releases.py)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import card_markdown

from eqcards.cards.load import parse_card
from eqcards.cards.model import Card
from eqcards.cards.releases import Release, ReleaseBook, load_releases, snapshot_json
from eqcards.core.errors import CardError, CardErrors
from eqcards.pages.changelog import render_card_history, render_changelog, render_errata
from eqcards.pages.citation import Edition, bibtex, highwire_meta, plain_citation
from eqcards.pages.listings import render_home

EDITION = Edition("Equation Cards", "https://cards.example.org/", "2026-12-09")
R1 = Release("1.0.0", "2026-12-01", "First release.")
R2 = Release("1.1.0", "2026-12-05", "Corrections.")


def card(tmp_path: Path, **changes: object) -> Card:
    path = tmp_path / f"{changes.get('id', 'toy-entropy')}.md"
    path.write_text(card_markdown(**changes), encoding="utf-8")
    return parse_card(path)


def frozen(release: Release, *cards: Card) -> dict:
    return json.loads(snapshot_json(release, list(cards)))["cards"]


def write_releases(folder: Path, text: str, snapshots: dict[str, list[Card]] | None = None) -> Path:
    path = folder / "releases.yml"
    path.write_text(text, encoding="utf-8")
    for version, cards in (snapshots or {}).items():
        (folder / "releases").mkdir(exist_ok=True)
        release = Release(version, "2026-12-01", "x")
        (folder / "releases" / f"{version}.json").write_text(snapshot_json(release, cards), encoding="utf-8")
    return path


TWO = ('- version: "1.0.0"\n  date: 2026-12-01\n  summary: First release.\n'
       '- version: "1.1.0"\n  date: 2026-12-05\n  summary: Corrections.\n')


# --- docs/releases.yml ---------------------------------------------------------------------------

def test_no_releases_file_means_no_releases(tmp_path: Path) -> None:
    book = load_releases(tmp_path / "releases.yml")
    assert book.releases == [] and book.current is None and not book.cutting


def test_releases_load_oldest_first_with_their_snapshots(tmp_path: Path) -> None:
    old = card(tmp_path)
    book = load_releases(write_releases(tmp_path, TWO, {"1.0.0": [old], "1.1.0": [old]}))
    assert [r.version for r in book.releases] == ["1.0.0", "1.1.0"]
    assert book.current == R2 and not book.cutting
    assert set(book.frozen) == {"1.0.0", "1.1.0"} and "toy-entropy" in book.frozen["1.0.0"]


@pytest.mark.parametrize(("text", "line", "message"), [
    ('- version: 1.0\n  date: 2026-12-01\n  summary: x\n', 1, "is not a release number MAJOR.MINOR.PATCH"),
    ('- version: "1.0"\n  date: 2026-12-01\n  summary: x\n', 1, "is not a release number"),
    ('- version: "1.0.0"\n  date: 2026-13-01\n  summary: x\n', 1, "invalid value"),
    ('- version: "1.0.0"\n  date: tomorrow\n  summary: x\n', 2, "is not a date YYYY-MM-DD"),
    ('- version: "1.0.0"\n  date: 2026-12-01\n', 1, "missing required key 'summary'"),
    ('- version: "1.0.0"\n  date: 2026-12-01\n  summary: x\n  notes: y\n', 4, "unknown key 'notes'"),
    (TWO.replace('"1.1.0"', '"0.9.0"'), 4, "release 0.9.0 is listed after 1.0.0"),
    (TWO.replace("2026-12-05", "2026-11-05"), 5, "dated 2026-11-05, before release 1.0.0"),
    ("[]\n", 1, "non-empty YAML list"),
])
def test_a_bad_releases_file_is_one_error_at_its_line(tmp_path: Path, text: str, line: int,
                                                      message: str) -> None:
    with pytest.raises(CardError) as caught:
        load_releases(write_releases(tmp_path, text))
    assert message in caught.value.message and caught.value.line == line, str(caught.value)
    assert caught.value.path.name == "releases.yml"


def test_a_snapshot_that_is_not_one_is_refused(tmp_path: Path) -> None:
    path = write_releases(tmp_path, TWO)
    (tmp_path / "releases").mkdir()
    (tmp_path / "releases" / "1.0.0.json").write_text('{"format": 1, "release": {"version": "2.0.0"}}')
    with pytest.raises(CardErrors, match=r"1\.0\.0\.json: unreadable release snapshot"):
        load_releases(path)


# --- a card across the releases --------------------------------------------------------------------

def test_a_card_is_added_in_its_first_release_and_changed_where_a_field_differs(tmp_path: Path) -> None:
    old = card(tmp_path)
    new = card(tmp_path, equation=r"H(P) = -\sum_x P(x) \log_2 P(x)")
    book = ReleaseBook([R1, R2], {"1.0.0": frozen(R1, old), "1.1.0": frozen(R2, new)})
    record = book.record(new)
    assert record.added_in == R1 and record.last_changed_in == R2
    assert [(c.release.version, c.fields) for c in record.changes] == [("1.1.0", ("equation",))]
    assert record.unreleased == () and record.released_as == R2


def test_symbol_meanings_and_sources_are_tracked_title_and_prose_are_not(tmp_path: Path) -> None:
    old = card(tmp_path)
    book = ReleaseBook([R1], {"1.0.0": frozen(R1, old)})
    assert book.record(card(tmp_path, title="Renamed", summary="Other words.")).unreleased == ()
    meaning = card(tmp_path, symbols=[{"symbol": "P", "meaning": "a probability mass function"}])
    assert book.record(meaning).unreleased == ("symbols",)
    source = dict(old.sources[0].__dict__, locator="Sec. 7")
    both = card(tmp_path, sources=[{k: v for k, v in source.items() if v is not None}],
                symbols=[{"symbol": "Q", "meaning": "a distribution"}])
    assert book.record(both).unreleased == ("symbols", "sources")
    assert book.record(both).released_as is None  # cited as the build's date, not as 1.0.0


def test_a_card_after_the_newest_release_is_in_none_a_renamed_one_keeps_its_history(tmp_path: Path) -> None:
    old = card(tmp_path)
    book = ReleaseBook([R1], {"1.0.0": frozen(R1, old)})
    fresh = book.record(card(tmp_path, id="toy-new", snippet="toy-new.py"))
    assert fresh.added_in is None and fresh.released_as is None and fresh.current == R1
    renamed = book.record(card(tmp_path, id="toy-renamed", snippet="toy-renamed.py",
                               former_ids=["toy-entropy"]))
    assert renamed.added_in == R1 and renamed.released_as == R1


def test_the_release_being_cut_holds_the_cards_as_they_are(tmp_path: Path) -> None:
    """Declared in releases.yml, not frozen yet: its content is the current cards."""
    old = card(tmp_path)
    new = card(tmp_path, equation=r"H(P) = -\sum_x P(x) \ln P(x)")
    book = ReleaseBook([R1, R2], {"1.0.0": frozen(R1, old)})
    assert book.cutting
    record = book.record(new)
    assert [(c.release, c.fields) for c in record.changes] == [(R2, ("equation",))]
    assert record.unreleased == () and record.released_as == R2
    assert ReleaseBook([R1], {}).record(old).added_in == R1  # the first release, being cut


# --- the history rule --------------------------------------------------------------------------------

def test_a_change_in_a_release_without_a_history_entry_fails_at_its_field(tmp_path: Path) -> None:
    old = card(tmp_path)
    new = card(tmp_path, equation=r"H(P) = -\sum_x P(x) \ln P(x)")
    book = ReleaseBook([R1, R2], {"1.0.0": frozen(R1, old)})
    [error] = book.problems(new)
    assert error.path == new.path and error.line == new.line_of("equation")
    assert "the equation changed in release 1.1.0, but 'history' has no entry for 1.1.0" in error.message
    noted = card(tmp_path, equation=new.equation,
                 history=[{"release": "1.1.0", "date": "2026-12-04", "note": "Natural log, as in Sec. 6."}])
    assert book.problems(noted) == []
    # A frozen past release keeps the rule: dropping the entry later fails again.
    later = ReleaseBook([R1, R2], {"1.0.0": frozen(R1, old), "1.1.0": frozen(R2, new)})
    assert len(later.problems(new)) == 1 and later.problems(noted) == []


def test_an_unreleased_change_needs_no_entry_yet_and_may_name_the_next_release(tmp_path: Path) -> None:
    old = card(tmp_path)
    book = ReleaseBook([R1], {"1.0.0": frozen(R1, old)})
    changed = card(tmp_path, equation=r"H(P) = -\sum_x P(x) \ln P(x)")
    assert book.problems(changed) == []
    upcoming = card(tmp_path, equation=changed.equation,
                    history=[{"release": "1.0.1", "date": "2026-12-06", "note": "Natural log."}])
    assert book.problems(upcoming) == []
    unknown = card(tmp_path, equation=changed.equation,
                   history=[{"release": "0.9.0", "date": "2026-12-06", "note": "Natural log."}])
    [error] = book.problems(unknown)
    assert "release 0.9.0, which docs/releases.yml does not declare" in error.message
    assert error.line == unknown.line_of("history", 0)


@pytest.mark.parametrize(("entry", "message"), [
    ({"release": 1.1, "date": "2026-12-04", "note": "x"}, "is not a release number"),
    ({"release": "1.1.0", "date": "04/12/2026", "note": "x"}, "is not a date YYYY-MM-DD"),
    ({"release": "1.1.0", "date": "2026-12-04"}, "missing required key 'note'"),
    ({"release": "1.1.0", "date": "2026-12-04", "note": "x", "why": "y"}, "unknown key 'why'"),
])
def test_a_bad_history_entry_is_refused_at_its_line(tmp_path: Path, entry: dict, message: str) -> None:
    with pytest.raises(CardError, match=message) as caught:
        card(tmp_path, history=[entry])
    assert caught.value.line is not None and caught.value.line > 1


def test_site_problems_name_a_lost_snapshot_a_stray_one_and_a_stale_citation_cff(tmp_path: Path) -> None:
    cff = tmp_path / "CITATION.cff"
    cff.write_text('cff-version: 1.2.0\nversion: "1.0.0"\ndate-released: 2026-12-01\n')
    lost = ReleaseBook([R1, R2], {})
    assert any("release 1.0.0 was never frozen" in e.message for e in lost.site_problems(cff))
    stray = ReleaseBook([R1], {"1.0.0": {}, "2.0.0": {}}, tmp_path / "releases.yml")
    assert [e.message for e in stray.site_problems()] == [
        "snapshot of release 2.0.0, which releases.yml does not declare"]
    assert ReleaseBook([R1], {"1.0.0": {}}).site_problems(cff) == []
    [stale] = ReleaseBook([R1, R2], {"1.0.0": {}}).site_problems(cff)
    assert stale.path == cff
    assert "names release 1.0.0 of 2026-12-01, but the site is release 1.1.0" in stale.message


# --- what readers see: citations, the card's history, the changelog, the errata ------------------------

def test_a_citation_names_the_release_or_says_the_card_changed_after_it(tmp_path: Path) -> None:
    old = card(tmp_path)
    book = ReleaseBook([R1], {"1.0.0": frozen(R1, old)})
    entry = bibtex(old, EDITION, book.record(old))
    assert "version = {1.0.0}" in entry and "note = {Release 1.0.0 (2026-12-01)}" in entry
    assert "year = {2026}" in entry and "urldate = {2026-12-09}" in entry
    assert "release 1.0.0 (2026-12-01). https://cards.example.org/cards/toy-entropy/ (accessed 2026-12-09)." \
        in plain_citation(old, EDITION, book.record(old))
    assert highwire_meta(old, EDITION, book.record(old))["citation_publication_date"] == "2026/12/01"
    changed = card(tmp_path, equation=r"H(P) = -\sum_x P(x) \ln P(x)")
    entry = bibtex(changed, EDITION, book.record(changed))
    assert "version =" not in entry
    assert "note = {Unreleased version of 2026-12-09 (after release 1.0.0)}" in entry
    assert highwire_meta(changed, EDITION, book.record(changed))["citation_publication_date"] == "2026/12/09"
    assert "note = {Version of 2026-12-09}" in bibtex(old, EDITION)  # a site with no releases


def test_a_card_page_says_when_it_was_added_and_changed_and_lists_its_history(tmp_path: Path) -> None:
    old = card(tmp_path)
    new = card(tmp_path, equation=r"H(P) = -\sum_x P(x) \ln P(x)",
               history=[{"release": "1.1.0", "date": "2026-12-04", "note": "Natural log, as in Sec. 6."}])
    book = ReleaseBook([R1, R2], {"1.0.0": frozen(R1, old), "1.1.0": frozen(R2, new)})
    section = "\n".join(render_card_history(new, book.record(new)))
    assert "**Added in** release [1.0.0](../changelog.md#release-1-0-0) (2026-12-01)" in section
    assert "**Last changed in** release [1.1.0](../changelog.md#release-1-1-0) (2026-12-05): equation." \
        in section
    untouched = "\n".join(render_card_history(old, ReleaseBook([R1], {"1.0.0": frozen(R1, old)}).record(old)))
    assert "**Last changed in** release 1.0.0, as added." in untouched
    assert "- **1.1.0** (2026-12-04): Natural log, as in Sec. 6." in section
    after = card(tmp_path, equation=r"H = 0",
                 history=[{"release": "1.1.0", "date": "2026-12-04", "note": "Natural log, as in Sec. 6."}])
    assert "Changed since release 1.1.0 (equation): the change is not in a release yet." in \
        "\n".join(render_card_history(after, book.record(after)))


def test_the_changelog_lists_each_release_newest_first_with_what_it_added_and_changed(tmp_path: Path) -> None:
    old = card(tmp_path)
    gone = card(tmp_path, id="toy-gone", snippet="toy-gone.py", title="Gone card")
    new = card(tmp_path, equation=r"H(P) = -\sum_x P(x) \ln P(x)",
               history=[{"release": "1.1.0", "date": "2026-12-04", "note": "Natural log."}])
    added = card(tmp_path, id="toy-added", snippet="toy-added.py", title="Added card")
    later = card(tmp_path, id="toy-later", snippet="toy-later.py", title="Later card")
    book = ReleaseBook([R1, R2], {"1.0.0": frozen(R1, old, gone), "1.1.0": frozen(R2, new, added)})
    page = render_changelog(book, [new, added, later])
    headings = ("## Since release 1.1.0", "## Release 1.1.0", "## Release 1.0.0")
    order = [page.index(heading) for heading in headings]
    assert order == sorted(order)
    since = page[page.index("## Since release"):page.index("## Release 1.1.0")]
    assert "[Later card](cards/toy-later.md) (added)" in since and "Toy entropy" not in since
    v11 = page[page.index("## Release 1.1.0"):page.index("## Release 1.0.0")]
    assert "**Changed (1):**" in v11
    assert "- [Toy entropy](cards/toy-entropy.md): equation. Natural log." in v11
    assert "**Added (1):** [Added card](cards/toy-added.md)." in v11
    assert "**Withdrawn (1):** `toy-gone`." in v11 and "(releases/1.1.0.json)" in v11
    v10 = page[page.index("## Release 1.0.0"):]
    assert "**Added (1):** [Toy entropy](cards/toy-entropy.md)." in v10 and "Changed" not in v10


def test_the_errata_page_lists_every_recorded_change_newest_first(tmp_path: Path) -> None:
    a = card(tmp_path, history=[{"release": "1.1.0", "date": "2026-12-04", "note": "First fix."},
                                {"release": "1.2.0", "date": "2026-12-20", "note": "Second fix."}])
    b = card(tmp_path, id="toy-b", snippet="toy-b.py", title="Other",
             history=[{"release": "1.1.0", "date": "2026-12-10", "note": "Fix of $x$."}])
    lines = render_errata([a, b]).splitlines()
    listed = [line for line in lines if line.startswith("- ")]
    assert listed == ["- 2026-12-20, release 1.2.0: [Toy entropy](cards/toy-entropy.md): Second fix.",
                      "- 2026-12-10, release 1.1.0: [Other](cards/toy-b.md): Fix of $x$.",
                      "- 2026-12-04, release 1.1.0: [Toy entropy](cards/toy-entropy.md): First fix."]
    assert "No card has changed since it was released." in render_errata([card(tmp_path)])


def test_the_home_page_names_the_release_when_there_is_one() -> None:
    template = "# Home\n\n<!-- eqcards:release -->\n"
    assert "This is **release 1.1.0** of 2026-12-05; the [changelog](changelog.md)" in \
        render_home(template, [], [], has_numbers=False, release=R2)
    assert "release" not in render_home(template, [], [], has_numbers=False)
