"""Check one card's front matter against the schema and turn it into typed values."""

from __future__ import annotations

import datetime as dt
import re
from pathlib import Path
from typing import Any

from ..core.errors import CardError
from .frontmatter import Lines, parse_yaml
from .schema import (
    ARXIV_PATTERN,
    CARD_FIELDS,
    DOI_PATTERN,
    FIELDS_BY_NAME,
    ID_PATTERN,
    URL_PATTERN,
    VERSION_PATTERN,
)


class FieldChecker:
    """Validates values of one front-matter mapping, reporting errors at the right line."""

    def __init__(self, path: Path, lines: Lines) -> None:
        self.path = path
        self.lines = lines

    def fail(self, at: tuple[str | int, ...], message: str) -> CardError:
        while at and at not in self.lines:
            at = at[:-1]
        return CardError(self.path, message, self.lines.get(at))

    def text(self, value: Any, at: tuple[str | int, ...], *, allow_empty: bool = False) -> str:
        name = ".".join(str(p) for p in at)
        if isinstance(value, bool):
            # YAML reads a bare on/off/yes/no/true/false as a boolean, so the word never arrives.
            raise self.fail(at, f"'{name}' must be text, got the boolean {value}: YAML reads a bare on, off, "
                                "yes, no, true or false as one; put the word in quotes")
        if not isinstance(value, (str, int, float)):
            raise self.fail(at, f"'{name}' must be text, got {type(value).__name__}")
        text = str(value).strip()
        if not text and not allow_empty:
            raise self.fail(at, f"'{name}' must not be empty")
        return text

    def text_list(self, value: Any, at: tuple[str | int, ...]) -> list[str]:
        if value is None:
            return []
        if not isinstance(value, list):
            raise self.fail(at, f"'{at[-1]}' must be a list, e.g. [a, b]")
        return [self.text(v, (*at, i)) for i, v in enumerate(value)]

    def mapping(self, value: Any, at: tuple[str | int, ...], keys: dict[str, bool]) -> dict[str, Any]:
        name = ".".join(str(p) for p in at)
        if not isinstance(value, dict):
            raise self.fail(at, f"'{name}' must be a mapping with keys {', '.join(keys)}")
        for key in value:
            if key not in keys:
                raise self.fail((*at, key), f"unknown key '{key}' in '{name}'; allowed: {', '.join(keys)}")
        for key, required in keys.items():
            if required and key not in value:
                raise self.fail(at, f"'{name}' is missing required key '{key}'")
        return value

    def mapping_list(self, value: Any, at: tuple[str | int, ...],
                     keys: dict[str, bool]) -> list[dict[str, Any]]:
        if not isinstance(value, list) or not value:
            raise self.fail(at, f"'{at[-1]}' must be a non-empty list")
        return [self.mapping(v, (*at, i), keys) for i, v in enumerate(value)]


def yaml_list(path: Path, shape: str, *, empty: bool = False) -> tuple[list[Any], FieldChecker]:
    """A YAML file that holds a list (the topics, the numbers, the releases) and a checker for its
    items; anything else is one error at line 1 saying what the list holds."""
    data, lines = parse_yaml(path.read_text(encoding="utf-8"), path)
    if not isinstance(data, list) or not (data or empty):
        raise CardError(path, f"{path.name} must be a {'' if empty else 'non-empty '}YAML list of {shape}", 1)
    return data, FieldChecker(path, lines)


def check_top_level(data: Any, path: Path, lines: Lines) -> dict[str, Any]:
    """Reject front matter that is not a mapping or has unknown or missing fields."""
    if not isinstance(data, dict):
        raise CardError(path, "front matter must be a YAML mapping of field: value", lines.get(()))
    for key in data:
        if key not in FIELDS_BY_NAME:
            known = ", ".join(f.name for f in CARD_FIELDS)
            raise CardError(path, f"unknown field '{key}'; known fields: {known}", lines.get((key,)))
    for f in CARD_FIELDS:
        if f.required and f.name not in data:
            raise CardError(path, f"missing required field '{f.name}' ({f.doc})", lines.get(()))
    return data


def check_id(value: str, at: tuple[str, ...], checker: FieldChecker) -> str:
    if not re.match(ID_PATTERN, value):
        raise checker.fail(at, f"'{value}' is not a kebab-case id (lower-case letters, digits, hyphens)")
    return value


def check_source_link(source: dict[str, Any], at: tuple[str | int, ...], checker: FieldChecker) -> None:
    links = {k: source[k] for k in ("doi", "arxiv", "url") if source.get(k)}
    if not links:
        raise checker.fail(at, "source needs a 'doi', an 'arxiv' id or a 'url'")
    patterns = {"doi": DOI_PATTERN, "arxiv": ARXIV_PATTERN, "url": URL_PATTERN}
    for key, value in links.items():
        if not re.match(patterns[key], str(value)):
            example = {"doi": "10.1214/aoms/1177729694", "arxiv": "1706.03762",
                       "url": "https://..."}[key]
            raise checker.fail((*at, key), f"'{key}: {value}' is malformed (expected e.g. {example})")


def check_version(value: Any, at: tuple[str | int, ...], checker: FieldChecker) -> str:
    """A release number, MAJOR.MINOR.PATCH (written in quotes in YAML, so 1.10 stays 1.10)."""
    text = checker.text(value, at)
    if not isinstance(value, str) or not re.match(VERSION_PATTERN, text):
        raise checker.fail(at, f"'{text}' is not a release number MAJOR.MINOR.PATCH in quotes, "
                           "e.g. \"1.2.0\"")
    return text


def check_date(value: Any, at: tuple[str | int, ...], checker: FieldChecker) -> str:
    """An ISO date, YYYY-MM-DD (YAML reads one unquoted as a date; quoted, as text)."""
    if isinstance(value, dt.date) and not isinstance(value, dt.datetime):
        return value.isoformat()
    text = str(value).strip()
    try:
        if re.match(r"^\d{4}-\d{2}-\d{2}$", text):
            return dt.date.fromisoformat(text).isoformat()
    except ValueError:
        pass
    raise checker.fail(at, f"'{text}' is not a date YYYY-MM-DD")
