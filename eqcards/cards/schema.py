"""The card front-matter schema: every field a card may carry, declared and documented once."""

from __future__ import annotations

from dataclasses import dataclass

# Kebab-case slug: lower-case words of letters and digits joined by single hyphens.
ID_PATTERN = r"^[a-z0-9]+(?:-[a-z0-9]+)*$"
DOI_PATTERN = r"^10\.\d{4,9}/\S+$"
ARXIV_PATTERN = r"^(?:\d{4}\.\d{4,5}|[a-z\-]+(?:\.[A-Z]{2})?/\d{7})(?:v\d+)?$"
URL_PATTERN = r"^https?://\S+$"


@dataclass(frozen=True)
class Field:
    """One front-matter field: its YAML type, whether it is required, and what it means."""

    name: str
    kind: str  # "str", "int", "list[str]", "symbols", "sources", "cheatsheet"
    required: bool
    doc: str


CARD_FIELDS: tuple[Field, ...] = (
    Field("id", "str", True,
          "Stable kebab-case slug, equal to the file name; the card's URL is /cards/<id>/ "
          "and never changes once published."),
    Field("title", "str", True, "Human name of the formula, as a heading."),
    Field("topic", "str", True, "Topic id declared in docs/topics.yml."),
    Field("equation", "str", True,
          "Canonical LaTeX of the formula, without $ delimiters; rendered as display math."),
    Field("summary", "str", True, "One plain-English line saying what the formula computes."),
    Field("symbols", "symbols", True,
          "List of {symbol, meaning}: symbol is LaTeX without $, meaning is plain text."),
    Field("aliases", "list[str]", True,
          "Other names, abbreviations and symbol spellings people search for (e.g. D_KL)."),
    Field("tags", "list[str]", True, "Free keywords, lower-case."),
    Field("sources", "sources", True,
          "Primary sources: {authors, year, title, venue, doi|arxiv|url, locator?}; "
          "locator is the equation or section number in the source."),
    Field("related", "list[str]", True, "Ids of related cards; each must exist."),
    Field("seeds", "list[str]", True,
          "Seed entries realized: 'handbook/<section>/<#### heading>' or "
          "'cheatsheet/<table heading>/<row label>', exactly as in the seed files."),
    Field("snippet", "str", True, "Path of the verifying snippet, relative to snippets/."),
    Field("cheatsheet", "cheatsheet", True,
          "{label, latex?}: the cheatsheet row label and an optional shorter LaTeX form."),
    Field("errata", "errata", False,
          "List of {seed, note}: where a seed entry this card realizes is wrong or imprecise, "
          "what the card does differently and why. Collected on the errata page."),
    Field("mistakes", "mistakes", False,
          "List of {note, where?}: a mistake common in secondary accounts of the formula (blog posts, "
          "library docs, lecture notes), what is right instead and why; `where` says where it is found. "
          "Shown with the card's errata as its common mistakes."),
    Field("calculator", "calculator", False,
          "{inputs, define?, outputs, presets?, chart?}: the calculator shown on the page. Inputs are "
          "{name, symbol, meaning, unit, default, min, max, step?}; outputs {name, symbol, meaning, unit, "
          "expr} with expr a JavaScript expression over the inputs and the `define` {name, expr} before "
          "it; presets are ids from docs/presets.yml. The snippet records its formula on a grid with "
          "cardcalc.table, and the build checks the expressions against it."),
    Field("in_code", "in_code", False,
          "List of {library, call, differs, fix?}: the card's formula as a library computes it. "
          "`library` names a `# --- in code: LIBRARY ---` region of the snippet, which runs the call "
          "on the card's inputs against the card's formula (every region needs its entry); `call` is "
          "the call with the card's symbols as its arguments; `differs` says where the library's "
          "defaults or convention differ from the equation; `fix` is the one-line change that makes "
          "it equal the card."),
    Field("timeout", "int", False, "Snippet timeout in seconds (default 30)."),
    Field("former_ids", "list[str]", False, "Ids this card was published under before."),
    Field("history", "history", False,
          "List of {release, date, note}: each change of the card's equation, symbols or sources "
          "after its first release, with the release it is in, the date and what changed and why "
          "(the build fails on such a change without an entry; see docs/releases.yml)."),
)

SYMBOL_KEYS = {"symbol": True, "meaning": True}
SOURCE_KEYS = {
    "authors": True, "year": True, "title": True, "venue": True,
    "doi": False, "arxiv": False, "url": False, "locator": False,
}
CHEATSHEET_KEYS = {"label": True, "latex": False}
ERRATUM_KEYS = {"seed": True, "note": True}
MISTAKE_KEYS = {"note": True, "where": False}
IN_CODE_KEYS = {"library": True, "call": True, "differs": True, "fix": False}
HISTORY_KEYS = {"release": True, "date": True, "note": True}
RELEASE_KEYS = {"version": True, "date": True, "summary": True}
# Semantic versions, MAJOR.MINOR.PATCH, as releases are numbered (https://semver.org).
VERSION_PATTERN = r"^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)$"

TOPIC_KEYS = {"id": True, "title": True, "description": True, "handbook": False, "cards": False}
PART_KEYS = {"part": True, "title": True, "description": True, "topics": True}

FIELDS_BY_NAME = {f.name: f for f in CARD_FIELDS}
