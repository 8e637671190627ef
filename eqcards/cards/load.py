"""Load cards and topics from disk and validate them, alone and against each other."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from ..core.errors import CardError, CardErrors
from .calculator import parse_calculator
from .frontmatter import parse_yaml, split_front_matter
from .model import Card, CheatsheetEntry, Erratum, HistoryEntry, InCode, Mistake, Part, Source, Symbol, Topic
from .schema import (
    CHEATSHEET_KEYS,
    ERRATUM_KEYS,
    HISTORY_KEYS,
    IN_CODE_KEYS,
    MISTAKE_KEYS,
    PART_KEYS,
    SOURCE_KEYS,
    SYMBOL_KEYS,
    TOPIC_KEYS,
)
from .validate import (
    FieldChecker,
    check_date,
    check_id,
    check_source_link,
    check_top_level,
    check_version,
    yaml_list,
)

DEFAULT_TIMEOUT = 30


def parse_card(path: Path, text: str | None = None) -> Card:
    """Parse and validate one card file on its own (cross-card checks are in `load_cards`)."""
    if text is None:
        try:
            text = path.read_text(encoding="utf-8")
        except UnicodeDecodeError as exc:
            raise CardError(path, f"file is not UTF-8 text ({exc.reason})") from None
    raw, body, body_line = split_front_matter(text, path)
    data, lines = parse_yaml(raw, path, first_line=2)
    data = check_top_level(data, path, lines)
    c = FieldChecker(path, lines)

    card_id = check_id(c.text(data["id"], ("id",)), ("id",), c)
    if card_id != path.stem:
        raise c.fail(("id",), f"id '{card_id}' differs from the file name '{path.name}': "
                     f"rename the file to {card_id}.md or fix the id")
    symbols = [Symbol(c.text(s["symbol"], ("symbols", i, "symbol")),
                      c.text(s["meaning"], ("symbols", i, "meaning")))
               for i, s in enumerate(c.mapping_list(data["symbols"], ("symbols",), SYMBOL_KEYS))]
    sources = []
    for i, s in enumerate(c.mapping_list(data["sources"], ("sources",), SOURCE_KEYS)):
        at = ("sources", i)
        check_source_link(s, at, c)
        year = s["year"]
        if isinstance(year, bool) or not isinstance(year, int) or not 1600 <= year <= 2100:
            raise c.fail((*at, "year"), f"'year' must be a four-digit year, got {year!r}")
        sources.append(Source(
            authors=c.text(s["authors"], (*at, "authors")), year=year,
            title=c.text(s["title"], (*at, "title")), venue=c.text(s["venue"], (*at, "venue")),
            doi=_optional(c, s, at, "doi"), arxiv=_optional(c, s, at, "arxiv"),
            url=_optional(c, s, at, "url"), locator=_optional(c, s, at, "locator")))
    sheet = c.mapping(data["cheatsheet"], ("cheatsheet",), CHEATSHEET_KEYS)
    timeout = data.get("timeout", DEFAULT_TIMEOUT)
    if isinstance(timeout, bool) or not isinstance(timeout, int) or not 1 <= timeout <= 600:
        raise c.fail(("timeout",), f"'timeout' must be whole seconds from 1 to 600, got {timeout!r}")
    seeds = c.text_list(data["seeds"], ("seeds",))
    errata = []
    if "errata" in data:
        for i, e in enumerate(c.mapping_list(data["errata"], ("errata",), ERRATUM_KEYS)):
            seed = c.text(e["seed"], ("errata", i, "seed"))
            if seed not in seeds:
                raise c.fail(("errata", i, "seed"), f"erratum seed '{seed}' is not one of this "
                             "card's `seeds`")
            errata.append(Erratum(seed, c.text(e["note"], ("errata", i, "note"))))
    mistakes = []
    if "mistakes" in data:
        for i, m in enumerate(c.mapping_list(data["mistakes"], ("mistakes",), MISTAKE_KEYS)):
            mistakes.append(Mistake(c.text(m["note"], ("mistakes", i, "note")),
                                    _optional(c, m, ("mistakes", i), "where")))
    history = []
    if "history" in data:
        for i, h in enumerate(c.mapping_list(data["history"], ("history",), HISTORY_KEYS)):
            at = ("history", i)
            history.append(HistoryEntry(check_version(h["release"], (*at, "release"), c),
                                        check_date(h["date"], (*at, "date"), c),
                                        c.text(h["note"], (*at, "note"))))
    in_code = []
    for i, entry in enumerate(c.mapping_list(data["in_code"], ("in_code",), IN_CODE_KEYS)
                              if "in_code" in data else []):
        at = ("in_code", i)
        library = c.text(entry["library"], (*at, "library"))
        if library in [e.library for e in in_code]:
            raise c.fail((*at, "library"), f"library '{library}' has two in_code entries: keep one per "
                         "library (one region each)")
        in_code.append(InCode(library, c.text(entry["call"], (*at, "call")),
                              c.text(entry["differs"], (*at, "differs")), _optional(c, entry, at, "fix")))
    snippet = c.text(data["snippet"], ("snippet",))
    if not snippet.endswith(".py") or snippet.startswith(("/", "..")) or "/../" in snippet:
        raise c.fail(("snippet",), f"'snippet: {snippet}' must be a .py path inside snippets/")
    return Card(
        id=card_id,
        title=c.text(data["title"], ("title",)),
        topic=c.text(data["topic"], ("topic",)),
        equation=c.text(data["equation"], ("equation",)),
        summary=c.text(data["summary"], ("summary",)),
        symbols=symbols,
        aliases=c.text_list(data["aliases"], ("aliases",)),
        tags=c.text_list(data["tags"], ("tags",)),
        sources=sources,
        related=[check_id(r, ("related", i), c)
                 for i, r in enumerate(c.text_list(data["related"], ("related",)))],
        seeds=seeds,
        errata=errata,
        mistakes=mistakes,
        history=history,
        calculator=parse_calculator(data["calculator"], c) if "calculator" in data else None,
        in_code=in_code,
        snippet=snippet,
        cheatsheet=CheatsheetEntry(c.text(sheet["label"], ("cheatsheet", "label")),
                                   _optional(c, sheet, ("cheatsheet",), "latex")),
        timeout=timeout,
        former_ids=[check_id(r, ("former_ids", i), c)
                    for i, r in enumerate(c.text_list(data.get("former_ids"), ("former_ids",)))],
        path=path, body=body, body_line=body_line, lines=lines,
    )


def _optional(c: FieldChecker, mapping: dict, at: tuple[str | int, ...], key: str) -> str | None:
    value = mapping.get(key)
    return None if value is None else c.text(value, (*at, key))


def load_parts(path: Path) -> list[Part]:
    """Read the parts and their topics; their order in the file is the order on the site."""
    data, c = yaml_list(path, "parts {part, title, description, topics: [{id, title, description, cards}]}")
    parts: list[Part] = []
    seen: set[str] = set()
    order = 0
    for i, item in enumerate(data):
        p = c.mapping(item, (i,), PART_KEYS)
        part_id = check_id(c.text(p["part"], (i, "part")), (i, "part"), c)
        if any(x.id == part_id for x in parts):
            raise c.fail((i, "part"), f"part id '{part_id}' is declared twice")
        if not isinstance(p["topics"], list) or not p["topics"]:
            raise c.fail((i, "topics"), f"part '{part_id}' needs a non-empty list of topics")
        topics = []
        for j, entry in enumerate(p["topics"]):
            at = (i, "topics", j)
            t = c.mapping(entry, at, TOPIC_KEYS)
            topic_id = check_id(c.text(t["id"], (*at, "id")), (*at, "id"), c)
            if topic_id in seen:
                raise c.fail((*at, "id"), f"topic id '{topic_id}' is declared twice")
            seen.add(topic_id)
            sections = t.get("handbook", [])
            if not isinstance(sections, list) or not all(
                    isinstance(s, int) and not isinstance(s, bool) and s > 0 for s in sections):
                raise c.fail((*at, "handbook"), "'handbook' must be a list of handbook section "
                             f"numbers, e.g. [3], got {sections!r}")
            topics.append(Topic(topic_id, c.text(t["title"], (*at, "title")),
                                c.text(t["description"], (*at, "description")), order=order,
                                part=part_id, handbook=tuple(sections),
                                reading_order=_reading_order(t, at, c)))
            order += 1
        parts.append(Part(part_id, c.text(p["title"], (i, "title")),
                          c.text(p["description"], (i, "description")), tuple(topics)))
    return parts


def _reading_order(topic: dict, at: tuple[str | int, ...], c: FieldChecker) -> tuple[tuple[str, int], ...]:
    """A topic's `cards` list: its card ids in reading order, each with its line."""
    ids = [check_id(card_id, (*at, "cards", k), c)
           for k, card_id in enumerate(c.text_list(topic.get("cards"), (*at, "cards")))]
    for k, card_id in enumerate(ids):
        if card_id in ids[:k]:
            raise c.fail((*at, "cards", k), f"card '{card_id}' is listed twice in the reading order "
                         f"of topic '{topic['id']}': keep one")
    return tuple((card_id, c.lines.get((*at, "cards", k), 0)) for k, card_id in enumerate(ids))


def load_topics(path: Path) -> list[Topic]:
    """Every topic of every part, in site order."""
    return [t for part in load_parts(path) for t in part.topics]


def load_cards(cards_dir: Path, topics: Iterable[Topic], seed_entries: set[str],
               snippets_dir: Path) -> list[Card]:
    """Load every card under cards_dir and check them against each other.

    All problems are collected and raised together as CardErrors, so a contributor
    sees every mistake from one build instead of fixing them one at a time. One mistake is one
    error: a card that does not load is reported once, with the cards that relate to it counted
    in its message, not as an error of each of them.
    """
    errors: list[CardError] = []
    cards: list[Card] = []
    unloaded: dict[str, int] = {}  # the id (file name) of each card that did not load: its error
    for path in sorted(cards_dir.glob("*.md")):
        try:
            cards.append(parse_card(path))
        except CardError as exc:
            unloaded[path.stem] = len(errors)
            errors.append(exc)
    topic_ids = {t.id for t in topics}
    by_id: dict[str, Card] = {}
    for card in cards:
        if card.id in by_id:  # only reachable with case-insensitive file systems or former ids
            errors.append(CardError(card.path, f"duplicate id '{card.id}' (also {by_id[card.id].path})",
                                    card.line_of("id")))
        by_id[card.id] = card
    former: dict[str, Card] = {}
    for card in cards:
        errors.extend(former_id_conflicts(card, by_id, former))
    for card in cards:
        errors.extend(cross_check(card, by_id, topic_ids, seed_entries, snippets_dir, set(unloaded)))
    for card_id, index in unloaded.items():
        if dependents := [c.path.name for c in cards if card_id in c.related and card_id not in by_id]:
            cause = errors[index]
            shown = ", ".join(dependents[:5]) + (", ..." if len(dependents) > 5 else "")
            errors[index] = CardError(cause.path, f"{cause.message} (so {len(dependents)} card"
                                      f"{'s' if len(dependents) != 1 else ''} relating to "
                                      f"'{card_id}' cannot link to it: {shown})", cause.line)
    if errors:
        raise CardErrors(errors)
    return cards


def former_id_conflicts(card: Card, by_id: dict[str, Card], former: dict[str, Card]) -> list[CardError]:
    """A former id of this card that is some card's id or another card's former id; records the
    card's former ids in `former` (checked in order, so the later claimant gets the error)."""
    errors = []
    for i, old in enumerate(card.former_ids):
        if old in by_id or old in former:
            other = by_id.get(old) or former[old]
            errors.append(CardError(card.path, f"former id '{old}' is already used by {other.path.name}",
                                    card.line_of("former_ids", i)))
        former[old] = card
    return errors


def cross_check(card: Card, by_id: dict[str, Card], topic_ids: set[str],
                seed_entries: set[str], snippets_dir: Path, unloaded: set[str]) -> list[CardError]:
    """Problems of one card against the others; a related card in `unloaded` (its file exists but
    did not load) is its own error, reported once, not this card's."""
    errors = []
    if card.topic not in topic_ids:
        errors.append(CardError(card.path, f"unknown topic '{card.topic}'; declared topics: "
                                f"{', '.join(sorted(topic_ids))}", card.line_of("topic")))
    for i, rel in enumerate(card.related):
        if rel in unloaded and rel not in by_id:
            continue
        if rel not in by_id:
            errors.append(CardError(card.path, f"related card '{rel}' does not exist",
                                    card.line_of("related", i)))
        elif rel == card.id:
            errors.append(CardError(card.path, "a card cannot be related to itself",
                                    card.line_of("related", i)))
    for i, seed in enumerate(card.seeds):
        if seed not in seed_entries:
            errors.append(CardError(card.path, f"seed entry '{seed}' is not in the seed index "
                                    "(seeds/entries.txt); copy the heading exactly",
                                    card.line_of("seeds", i)))
    if not (snippets_dir / card.snippet).is_file():
        errors.append(CardError(card.path, f"snippet file snippets/{card.snippet} does not exist "
                                f"(create it, e.g. with scripts/new_card.py)", card.line_of("snippet")))
    return errors
