"""The built site as a whole: every internal link and anchor resolves, source links are well formed,
generated text is escaped, and the generated pages (numbers, symbols, errata) say what their sources say."""

from __future__ import annotations

import html
import re
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urldefrag, urlparse

import pytest
import yaml
from conftest import ROOT, Project

from eqcards.cards.schema import ARXIV_PATTERN, DOI_PATTERN

EXTERNAL = ("http://", "https://", "mailto:", "javascript:", "data:", "tel:")


class LinksAndIds(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.links: list[str] = []
        self.ids: set[str] = set()

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = dict(attrs)
        if values.get("id"):
            self.ids.add(values["id"])
        self.links += [values[name] for name in ("href", "src") if values.get(name)]


def parse(page: Path) -> LinksAndIds:
    parser = LinksAndIds()
    parser.feed(page.read_text(encoding="utf-8"))
    return parser


def target_file(site: Path, page: Path, link: str) -> Path:
    path = unquote(urlparse(link).path)
    base = page.parent if not path.startswith("/") else site
    target = (base / path.lstrip("/")).resolve() if path else page
    return target / "index.html" if target.is_dir() else target


def test_every_internal_link_and_anchor_resolves(built_site: Path) -> None:
    pages = sorted(built_site.rglob("*.html"))
    parsed = {page.resolve(): parse(page) for page in pages}
    broken = []
    for page, found in parsed.items():
        for link in found.links:
            if link.startswith(EXTERNAL) or link.startswith("#!"):
                continue
            address, fragment = urldefrag(link)
            target = target_file(built_site, page, address)
            if not target.exists():
                broken.append(f"{page.relative_to(built_site.resolve())}: {link}")
            elif fragment and target.suffix == ".html":
                ids = parsed.get(target) or parse(target)
                if unquote(fragment) not in ids.ids:
                    broken.append(f"{page.relative_to(built_site.resolve())}: {link} (no such anchor)")
    assert broken == []


def test_source_links_are_well_formed(built_site: Path) -> None:
    doi, arxiv = re.compile(DOI_PATTERN[1:-1]), re.compile(ARXIV_PATTERN[1:-1])
    for page in (built_site / "cards").glob("*/index.html"):
        html = page.read_text(encoding="utf-8")
        for found in re.findall(r'href="https://doi\.org/([^"]+)"', html):
            assert doi.fullmatch(found), (page, found)
        for found in re.findall(r'href="https://arxiv\.org/abs/([^"]+)"', html):
            assert arxiv.fullmatch(found), (page, found)


@pytest.mark.build
def test_generated_text_is_escaped(project: Project) -> None:
    project.add_card("toy-entropy", title='Toy <script>alert("t")</script>',
                     aliases=['"quoted" <b>alias</b>'],
                     summary="A summary with <img src=x onerror=alert(1)> in it.")
    result = project.build()
    assert result.returncode == 0, result.stderr
    site = project.root / "site"
    for page in (site / "cards" / "toy-entropy" / "index.html", site / "cheatsheet" / "index.html",
                 site / "topics" / "information-theory" / "index.html"):
        html = page.read_text(encoding="utf-8")
        assert "<script>alert" not in html and "<img src=x" not in html, page
    card = (site / "cards" / "toy-entropy" / "index.html").read_text(encoding="utf-8")
    assert "&lt;script&gt;alert" in card and "&lt;b&gt;alias&lt;/b&gt;" in card


# --- Generated pages, as built: numbers, symbols, errata ---------------------------------------

MATH = re.compile(r'<span class="arithmatex"><span class="eqc-math[^"]*".*?</svg></span>'
                  r'<span class="eqc-tex" hidden>\\\((.*?)\\\)</span></span>', re.S)


def page_text(markup: str) -> str:
    """What a reader sees, with each typeset formula written back as $TeX$, spaces collapsed."""
    markup = MATH.sub(lambda m: "$" + m.group(1) + "$", markup)
    return " ".join(html.unescape(re.sub(r"<[^>]+>", "", markup)).split())


MARKDOWN_ESCAPE = re.compile(r"\\([\\`*_{}\[\]()#+\-.!|<>])")
CODE_SPAN = re.compile(r"`([^`]+)`")


def as_rendered(text: str) -> str:
    """A metadata string as its page should show it: it is Markdown, so a backslash escape
    (\\| for a bar) shows the bare character and `code` its text; inside $math$ a backslash is
    TeX. Any other character shows as written (a * is a star, not emphasis)."""
    parts = re.split(r"(\$[^$]+\$)", text)
    prose = [p if i % 2 else CODE_SPAN.sub(r"\1", MARKDOWN_ESCAPE.sub(r"\1", p)) for i, p in enumerate(parts)]
    return " ".join("".join(prose).split())


def bars(text: str) -> str:
    r"""For comparing: a table cell writes a bar inside math as \vert (a bare | would end the
    cell), and spaces inside math are not part of the formula."""
    parts = re.split(r"(\$[^$]+\$)", text)
    return "".join("".join(re.sub(r"\\vert(?![a-zA-Z])", "|", p).split()) if i % 2 else p
                   for i, p in enumerate(parts))


def unscripted(text: str) -> str:
    """For comparing: the script notation of card text (x_t, A^π, x_{t-1}, σ^(1/ρ)) is shown as
    <sub> and <sup>, which a page's text loses; so marks, braces and parentheses are not compared,
    nor a minus sign with the hyphen it is written as."""
    return re.sub(r"[_^{}()]", "", text).replace("−", "-")


def where_they_differ(source: str, page: str) -> str:
    at = next((i for i, (a, b) in enumerate(zip(source, page, strict=False)) if a != b),
              min(len(source), len(page)))
    start = max(at - 40, 0)
    return f"the source says ...{source[start:at + 60]!r}, the page ...{page[start:at + 60]!r}"


@pytest.fixture(scope="module")
def cards() -> list:
    from eqcards.cards.load import load_cards, load_topics
    from eqcards.cards.seeds import read_index

    return load_cards(ROOT / "docs" / "cards", load_topics(ROOT / "docs" / "topics.yml"),
                      read_index(ROOT / "seeds" / "entries.txt"), ROOT / "snippets")


# How each computed number is read off its snippet's output: the value the snippet computes.
FLOPS = r"N = (\d+) weights; forward (\d+) FLOPs, backward (\d+) FLOPs"
NUMBER_READINGS = {
    "nat-in-bits": (r"^1 nat = 1/ln 2 = ([\d.]+) bits$", lambda x: x),
    "chinchilla-ratio": (r"^Chinchilla: .* = ([\d.]+) tokens/param$", lambda x: x),
    "adam-bytes-per-parameter": (r"^total +([\d.]+) bytes/param$", lambda x: x),
    "training-flops-per-token": (FLOPS, lambda n, forward, backward: (forward + backward) / n),
    "inference-flops-per-token": (FLOPS, lambda n, forward, backward: forward / n),
}


def shown_number(value: str) -> tuple[float, float]:
    """A value as the page states it ('1.4427', '20', '6N': a multiple of N) and its rounding."""
    match = re.fullmatch(r"(\d+(?:\.(\d+))?)N?", value)
    assert match, f"not a plain number: {value!r}"
    return float(match.group(1)), 0.5 * 10.0 ** -len(match.group(2) or "")


def number_sections(page: str) -> dict[str, str]:
    parts = re.split(r'<h2 id="([^"]+)">', page)
    return dict(zip(parts[1::2], parts[2::2], strict=True))


def test_numbers_page_shows_each_computed_value_as_its_snippet_computes_it(built_site: Path) -> None:
    entries = yaml.safe_load((ROOT / "docs" / "numbers.yml").read_text(encoding="utf-8"))
    computed = [e for e in entries if e["kind"] == "computed"]
    assert computed and {e["id"] for e in computed} == set(NUMBER_READINGS), (
        "every computed number needs a reading of its snippet's output in NUMBER_READINGS")
    page = (built_site / "numbers" / "index.html").read_text(encoding="utf-8")
    sections = number_sections(page)
    for entry in computed:
        shown = f"{entry['value']} {entry['unit']}".strip()
        row = re.search(rf'<td><a href="#{entry["id"]}">.*?</a></td>\s*<td>(.*?)</td>', page, re.S)
        assert row and page_text(row.group(1)) == shown, (entry["id"], row and row.group(1))
        section = sections[entry["id"]]
        assert page_text(re.search(r"<strong>(.*?)</strong>", section, re.S).group(1)) == shown
        summary = re.search(r"<summary>(.*?)</summary>", section, re.S)
        assert summary, entry["id"]
        assert page_text(summary.group(1)) == f"Computed and checked by snippets/{entry['snippet']}"
        output = html.unescape(re.sub(r"<[^>]+>", "", re.search(r"<pre>(.*?)</pre>", section, re.S).group(1)))
        assert "PASS" in output and "FAIL" not in output, output
        pattern, compute = NUMBER_READINGS[entry["id"]]
        found = re.search(pattern, output, re.M)
        assert found, f"{entry['id']}: no line of its snippet's output reads {pattern!r}:\n{output}"
        value = compute(*(float(g) for g in found.groups()))
        number, rounding = shown_number(entry["value"])
        assert abs(value - number) <= rounding, (entry["id"], "page:", entry["value"], "snippet:", value)


def test_symbols_page_lists_every_symbol_of_every_card_with_its_meaning_and_link(
        built_site: Path, cards: list) -> None:
    """Each symbol once (a letter in its style), and under it every form a card writes it in,
    with that card's meaning and a link to the card; numbers are no symbols and are left out."""
    from eqcards.pages.markup import plain
    from eqcards.pages.symbols import classify, identity

    page = (built_site / "symbols" / "index.html").read_text(encoding="utf-8")
    listed: dict[str, set[tuple[str, str]]] = {}
    for entry in re.findall(r'<div(?: data-find="[^"]*")?><dt>(.*?)</div>', page, re.S):
        symbol = html.unescape(re.search(r'data-tex="([^"]*)"', entry).group(1))
        assert symbol not in listed, f"symbol {symbol} listed twice"
        listed[symbol] = set()
        for meaning, links in re.findall(r"<dd>(.*?) — (<a href=.*?)</dd>", entry, re.S):
            for card_id in re.findall(r'<a href="\.\./cards/([^/"]+)/">', links):
                listed[symbol].add((card_id, page_text(meaning)))
    missing, left_out = [], 0
    for card in cards:
        for s in card.symbols:
            placed = classify(s.symbol)
            if placed is None:
                left_out += 1
                assert re.match(r"\s*\d", s.symbol), s.symbol  # a number, or a formula starting with one
                continue
            written = plain(f"${identity(s.symbol)}$")
            form = "" if written == plain(f"${placed[0]}$") else written + " "
            if (card.id, form + plain(s.meaning)) not in listed.get(placed[0], set()):
                missing.append(f"{card.id}, symbol {s.symbol}: not listed under {placed[0]}")
    assert missing == [], "\n".join(missing[:20])
    # Numbers are few: a classifier that lost a kind of symbol would leave many more out.
    assert 0 < left_out < len(cards) / 12 and len(listed) > 150, left_out


def test_corrections_page_lists_every_correction_under_its_card(built_site: Path, cards: list) -> None:
    """Under About: where the cards correct the documents the site grew from."""
    page = (built_site / "about" / "corrections" / "index.html").read_text(encoding="utf-8")
    corrections = page[page.index("<h1"):page.index("</article>")]
    listed: dict[str, list[tuple[str, str]]] = {}
    for section in re.split(r"(?=<h2 )", corrections)[1:]:
        found = re.search(r'<h2 [^>]*><a href="\.\./\.\./cards/([^/"]+)/">', section)
        assert found, section[:200]
        listed[found.group(1)] = [
            (html.unescape(seed), unscripted(page_text(note)))
            for seed, note in re.findall(r"<li><code>(.*?)</code>: (.*?)</li>", section, re.S)]
    expected = {c.id: [(e.seed, unscripted(as_rendered(e.note))) for e in c.errata]
                for c in cards if c.errata}
    assert expected, "no card has an erratum: the page would be empty"
    wrong = [f"{card_id}: {where_they_differ(str(expected.get(card_id)), str(listed.get(card_id)))}"
             for card_id in sorted(expected.keys() | listed.keys())
             if expected.get(card_id) != listed.get(card_id)]
    assert wrong == [], "\n".join(wrong)
