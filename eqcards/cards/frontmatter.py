"""Split a Markdown file into YAML front matter and body, keeping line numbers for errors."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import yaml

from ..core.errors import CardError

Lines = dict[tuple[str | int, ...], int]

# A backslash (not itself escaped) that YAML's double quotes read as an escape, followed by a letter:
# TeX such as "\theta", "\beta", "\nabla" or "\Lambda" silently becomes a tab, a backspace, a line
# break or U+2028 followed by the rest of the word.
TEX_AS_ESCAPE = re.compile(r"(?<!\\)((?:\\\\)*)\\([abefnrtv0NLP_])([A-Za-z]+)")


def split_front_matter(text: str, path: Path) -> tuple[str, str, int]:
    """Return (yaml text, body, line number of the body's first line)."""
    lines = text.splitlines(keepends=True)
    if not lines or lines[0].strip() != "---":
        raise CardError(path, "file must start with a '---' line opening the YAML front matter", 1)
    for i in range(1, len(lines)):
        if lines[i].strip() == "---":
            return "".join(lines[1:i]), "".join(lines[i + 1 :]), i + 2
    raise CardError(path, "front matter is never closed: add a '---' line after it", 1)


class _NoAliases(Exception):
    def __init__(self, mark: yaml.Mark) -> None:
        self.mark = mark


class _Loader(yaml.SafeLoader):
    """The safe loader, refusing anchors (&name) and aliases (*name) as it composes: a few lines
    of nested aliases expand exponentially (a "billion laughs"), and no card needs them."""

    def compose_node(self, parent: yaml.Node | None, index: object) -> yaml.Node | None:
        event = self.peek_event()
        if isinstance(event, yaml.AliasEvent) or getattr(event, "anchor", None) is not None:
            raise _NoAliases(event.start_mark)
        return super().compose_node(parent, index)


def parse_yaml(text: str, path: Path, first_line: int = 1) -> tuple[Any, Lines]:
    """Parse YAML safely; return the data and the 1-based line of every key and list item."""
    try:
        loader = _Loader(text)
    except yaml.YAMLError as exc:  # e.g. a control character, found before any parsing
        raise CardError(path, f"front matter is not valid YAML: {_first_line(exc)}", first_line) from None
    try:
        node = loader.get_single_node()
        if node is None:
            return None, {}
        data = loader.construct_document(node)
    except _NoAliases as exc:
        raise CardError(path, "YAML anchors and aliases (&name, *name) are not allowed: write each "
                        "value out where it is used", first_line + exc.mark.line) from None
    except RecursionError:
        raise CardError(path, "front matter is nested too deeply", first_line) from None
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None) or getattr(exc, "context_mark", None)
        line = first_line + mark.line if mark is not None else first_line
        problem = getattr(exc, "problem", None) or _first_line(exc)
        raise CardError(path, f"front matter is not valid YAML: {problem}", line) from None
    except ValueError as exc:  # e.g. an impossible date such as 2020-13-45
        raise CardError(path, f"front matter has an invalid value: {exc}", first_line) from None
    finally:
        loader.dispose()
    lines: Lines = {}
    _index_lines(node, (), lines, path, first_line)
    return data, lines


def _index_lines(node: yaml.Node, at: tuple[str | int, ...], lines: Lines,
                 path: Path, first_line: int) -> None:
    lines[at] = first_line + node.start_mark.line
    if isinstance(node, yaml.ScalarNode) and node.style == '"' and node.start_mark.buffer is not None:
        raw = node.start_mark.buffer[node.start_mark.index:node.end_mark.index]
        if found := TEX_AS_ESCAPE.search(raw):
            command = "\\" + found.group(2) + found.group(3)
            line = first_line + node.start_mark.line + raw.count("\n", 0, found.start(2))
            raise CardError(path, f"`{command}` in a double-quoted string is a YAML escape, not TeX: "
                            f"YAML reads `\\{found.group(2)}` as a control character. Double the backslash "
                            f"(`\\{command}`) or quote the string with single quotes", line)
    if isinstance(node, yaml.MappingNode):
        seen: set[str] = set()
        for key_node, value_node in node.value:
            key = str(key_node.value)
            if key in seen:
                raise CardError(path, f"key '{key}' appears twice",
                                first_line + key_node.start_mark.line)
            seen.add(key)
            lines[(*at, key)] = first_line + key_node.start_mark.line
            _index_lines(value_node, (*at, key), lines, path, first_line)
            lines[(*at, key)] = first_line + key_node.start_mark.line
    elif isinstance(node, yaml.SequenceNode):
        for i, item in enumerate(node.value):
            _index_lines(item, (*at, i), lines, path, first_line)


def _first_line(exc: Exception) -> str:
    return (str(exc).splitlines() or [type(exc).__name__])[0]
