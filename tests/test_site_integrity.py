"""The built site as a whole: every internal link and anchor resolves, source links are well formed,
generated text is escaped."""

from __future__ import annotations

import re
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urldefrag, urlparse

import pytest
from conftest import Project

from eqcards.schema import ARXIV_PATTERN, DOI_PATTERN

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
