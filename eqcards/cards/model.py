"""Typed values for cards and topics, as the rest of the package sees them."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import quote

from .calculator import Calculator


@dataclass(frozen=True)
class Symbol:
    symbol: str  # LaTeX, no delimiters
    meaning: str


@dataclass(frozen=True)
class Source:
    authors: str
    year: int
    title: str
    venue: str
    doi: str | None = None
    arxiv: str | None = None
    url: str | None = None
    locator: str | None = None  # equation or section number inside the source

    def record(self) -> dict[str, str | int]:
        """The source as exported and frozen in releases: its fields that are set."""
        return {k: v for k, v in vars(self).items() if v is not None}

    @property
    def link(self) -> str:
        """The most permanent link we have: DOI, then arXiv, then URL."""
        if self.doi:  # old DOIs hold <, > and ; (SICIs): percent-encoded, the link stays a link
            return f"https://doi.org/{quote(self.doi, safe='/:;()-._')}"
        if self.arxiv:
            return f"https://arxiv.org/abs/{self.arxiv}"
        return self.url or ""


@dataclass(frozen=True)
class CheatsheetEntry:
    label: str
    latex: str | None = None


@dataclass(frozen=True)
class Erratum:
    seed: str  # the seed entry key this correction is about
    note: str  # what the seed says wrongly and what the card does instead


@dataclass(frozen=True)
class Mistake:
    note: str  # the mistake, and what is right instead and why
    where: str | None  # where it is commonly found (a library's docs, a popular write-up)


@dataclass(frozen=True)
class InCode:
    """The card's formula as one library computes it (its snippet's `# --- in code: LIBRARY ---`)."""

    library: str  # the distribution name, as pip spells it, and the snippet region's name
    call: str  # the call, with the card's symbols as its arguments
    differs: str  # where the library's defaults or convention differ from the card's equation
    fix: str | None  # the one-line change that makes it equal the card, where one is needed


@dataclass(frozen=True)
class HistoryEntry:
    release: str  # the version of the release the change is in
    date: str  # ISO date of the change
    note: str  # what changed and why


@dataclass(frozen=True)
class Topic:
    id: str
    title: str
    description: str
    order: int
    part: str = ""  # the id of the part the topic belongs to
    handbook: tuple[int, ...] = ()  # the seed handbook's sections this topic covers
    # The declared reading order: card ids, prerequisites first, each with its line in topics.yml
    # (eqcards.cards.reading_order places and checks them).
    reading_order: tuple[tuple[str, int], ...] = ()


@dataclass(frozen=True)
class Part:
    """A part of the site (Foundations, LLMs, RAG, Agents): an ordered group of topics."""

    id: str
    title: str
    description: str
    topics: tuple[Topic, ...]


@dataclass
class Card:
    id: str
    title: str
    topic: str
    equation: str
    summary: str
    symbols: list[Symbol]
    aliases: list[str]
    tags: list[str]
    sources: list[Source]
    related: list[str]
    seeds: list[str]
    snippet: str
    cheatsheet: CheatsheetEntry
    path: Path
    body: str = ""
    body_line: int = 1
    timeout: int = 30
    former_ids: list[str] = field(default_factory=list)
    errata: list[Erratum] = field(default_factory=list)
    mistakes: list[Mistake] = field(default_factory=list)
    history: list[HistoryEntry] = field(default_factory=list)
    calculator: Calculator | None = None
    in_code: list[InCode] = field(default_factory=list)
    lines: dict[tuple[str | int, ...], int] = field(default_factory=dict, repr=False)

    @property
    def url(self) -> str:
        """Site-relative URL of the card page."""
        return f"cards/{self.id}/"

    @property
    def cheatsheet_latex(self) -> str:
        return self.cheatsheet.latex or self.equation

    def line_of(self, *at: str | int) -> int | None:
        return self.lines.get(tuple(at))
