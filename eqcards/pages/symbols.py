"""The notation index (/symbols/): every symbol the cards define, once, filed by the letter it is.

A symbol is a letter in its style (x, \\mathbf{x} and \\mathcal{X} are three), a word (\\mathrm{KL},
\\log) or an operator (\\nabla); under it come the forms the cards write it in (x_t, \\hat x), each
meaning, and the cards giving it. Symbols are filed under Latin letters A to Z, then Greek in the
alphabet's own order, then operators and the rest. Numbers, and formulas that start with one
("0.5", "6ND"), are not notation and are left out. The page is one block of HTML: a letter bar,
a filter box that docs/javascripts/symbols.js runs (hidden until it does), and the groups."""

from __future__ import annotations

import html
import itertools
import re
from dataclasses import dataclass, field

from ..cards.model import Card
from . import markup

GREEK_ORDER = ("alpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu nu xi omicron pi "
               "rho sigma tau upsilon phi chi psi omega").split()
# Variant spellings and capitals, by the letter they are.
GREEK_VARIANTS = {"varepsilon": "epsilon", "vartheta": "theta", "varphi": "phi", "varpi": "pi",
                  "varrho": "rho", "varsigma": "sigma", "varkappa": "kappa"}
GREEK_GLYPH = dict(zip(GREEK_ORDER, "αβγδεζηθικλμνξοπρστυφχψω", strict=True))
OTHER = "other"
# Commands that dress a letter without being one: it is filed under the letter inside.
DRESSING = {"hat", "widehat", "bar", "overline", "tilde", "widetilde", "vec", "dot", "ddot", "check",
            "breve", "acute", "grave", "mathit", "left", "right", "big", "Big", "bigl", "bigr", "Bigl",
            "Bigr", "lVert", "rVert", "langle", "lvert", "Vert", "vert", "#", "{", "}", ",", ";", "!", " "}
# Styles that make another symbol of a letter (x, \\mathbf{x} and \\mathcal{X} are three), and
# the order they come in; upright text makes a word.
STYLES = {"mathbf": "\\mathbf", "boldsymbol": "\\boldsymbol", "bm": "\\boldsymbol",
          "mathcal": "\\mathcal", "mathscr": "\\mathcal", "mathbb": "\\mathbb", "mathsf": "\\mathsf",
          "mathfrak": "\\mathfrak", "mathtt": "\\mathtt", "mathrm": "\\mathrm", "operatorname": "\\mathrm",
          "text": "\\mathrm", "textrm": "\\mathrm", "textit": "\\mathrm", "textbf": "\\mathrm"}
STYLE_RANK = {"": 0, "\\mathbf": 1, "\\boldsymbol": 1, "\\mathsf": 2, "\\mathtt": 2, "\\mathfrak": 2,
              "\\mathcal": 2, "\\mathbb": 2}
OPERATORS = {"nabla", "partial", "odot", "otimes", "oplus", "cap", "cup", "sum", "prod"}
OPENERS = set("([{|'-+,.;")
TOKEN = re.compile(r"\\[A-Za-z]+|\\.|[A-Za-z]|\d|\S")


@dataclass
class Symbol:
    """One symbol of the index (a letter in its style: x, \\mathbf{x}, \\mathcal{X}, \\alpha) and
    every way the cards write it (x, x_t, \\hat x), each with its meanings and the cards giving them."""

    latex: str
    group: str  # "A".."Z", a Greek letter's name, or OTHER
    order: tuple
    forms: dict[str, dict[str, list[Card]]] = field(default_factory=dict)


def identity(latex: str) -> str:
    """Two spellings of one symbol are one symbol: spaces count only between two letters
    (`\\log p`), nowhere else (`x, y` is `x,y`)."""
    return re.sub(r"\s+", lambda m: " " if _letters_around(latex, m) else "", latex.strip())


def _letters_around(text: str, match: re.Match[str]) -> bool:
    before, after = text[:match.start()], text[match.end():]
    return bool(before) and bool(after) and before[-1].isalpha() and after[0].isalpha()


def _greek(command: str) -> str | None:
    name = GREEK_VARIANTS.get(command, command.lower())
    return name if name in GREEK_GLYPH else None


def classify(latex: str) -> tuple[str, str, tuple] | None:
    """(the symbol it is a form of, its group, its order in the group), or None when it is a
    number or starts with one. The symbol is the first letter written, in its style, without decorations."""
    tokens = TOKEN.findall(latex)
    if any(t.isdigit() for t in tokens) and not any(t.isalpha() or (t.startswith("\\") and t[1:].isalpha())
                                                     for t in tokens):
        return None  # digits and punctuation only: a number, not notation
    style = ""
    for position, token in enumerate(tokens):
        name = token[1:] if token.startswith("\\") else token
        if name in STYLES:
            style = STYLES[name]
            continue
        if name in DRESSING or token in OPENERS:
            continue
        if len(token) == 1 and token.isalpha():
            if style == "\\mathrm":  # a word: \\mathrm{KL}, \\operatorname{softmax}
                word = "".join(itertools.takewhile(str.isalpha, tokens[position:]))
                return f"\\mathrm{{{word}}}", token.upper(), (word.lower(), 3, word)
            base = f"{style}{{{token}}}" if style else token
            return base, token.upper(), (token.lower(), STYLE_RANK[style], token.isupper())
        if token.startswith("\\") and (letter := _greek(name)):
            base = f"{style}{{{token}}}" if style else token
            return base, letter, (name[0].isupper(), STYLE_RANK.get(style, 0), name)
        if token.startswith("\\") and name in markup.FUNCTION:
            return token, name[0].upper(), (name, 3, name)  # \\log, \\exp: filed as words are
        if token == "\\ell":
            return token, "L", ("l", 1, name)
        if token.isdigit():  # \\mathbf{1} is the indicator; 6ND a formula with constants
            return (f"{style}{{{token}}}", OTHER, (token,)) if style else None
        if token.startswith("\\") and name in OPERATORS:
            return token, OTHER, (name,)
        break
    return identity(latex), OTHER, (identity(latex),)


def collect(cards: list[Card]) -> list[Symbol]:
    """Every symbol once, in index order, with its forms and their meanings; a meaning several
    cards give in the same words is listed once, with all of them."""
    found: dict[str, Symbol] = {}
    for card in sorted(cards, key=lambda c: c.title.casefold()):
        for entry in card.symbols:
            placed = classify(entry.symbol)
            if placed is None:
                continue
            base, group, order = placed
            symbol = found.setdefault(base, Symbol(base, group, order))
            form = symbol.forms.setdefault(identity(entry.symbol), {})
            users = form.setdefault(" ".join(entry.meaning.split()), [])
            if all(c.id != card.id for c in users):
                users.append(card)
    for symbol in found.values():
        symbol.forms = dict(sorted(symbol.forms.items(), key=lambda f: (len(f[0]), f[0])))
    return sorted(found.values(), key=lambda s: (_group_rank(s.group), s.order))


def _group_rank(group: str) -> tuple[int, int | str]:
    if group == OTHER:
        return (2, 0)
    if group in GREEK_GLYPH:
        return (1, GREEK_ORDER.index(group))
    return (0, group)


def group_label(group: str) -> str:
    if group == OTHER:
        return "Operators and other"
    if group in GREEK_GLYPH:
        return f"{GREEK_GLYPH[group]} {group}"
    return group


def _math(latex: str) -> str:
    """Inline math as arithmatex leaves it, for the build to typeset (the page is raw HTML)."""
    return f'<span class="arithmatex">\\({html.escape(latex.strip(), quote=False)}\\)</span>'


def _text(value: str) -> str:
    # Math in meanings and titles as Unicode text (markup.plain): a thousand more typeset
    # formulas would double the page, and the symbol itself is typeset above them.
    return html.escape(markup.plain(value), quote=False)


def _entry(symbol: Symbol) -> str:
    lines = []
    for form, meanings in symbol.forms.items():
        # The form in Unicode text (x_t as xₜ) where it reads otherwise than the symbol itself.
        written = _text(f"${form}$")
        shown = "" if written == _text(f"${symbol.latex}$") else f"<b>{written}</b> "
        for meaning, users in meanings.items():
            cards = ", ".join(f'<a href="../cards/{c.id}/">{_text(c.title)}</a>' for c in users)
            lines.append(f"<dd>{shown}{_text(meaning)} — {cards}</dd>")
    # The filter matches the text a reader sees and the TeX kept with the symbol; a Greek
    # symbol also matches its letter typed as such.
    find = f' data-find="{GREEK_GLYPH[symbol.group]}"' if symbol.group in GREEK_GLYPH else ""
    return f"<div{find}><dt>{_math(symbol.latex)}</dt>{''.join(lines)}</div>"


def render_symbols(cards: list[Card]) -> str:
    """The notation index page, as Markdown holding one block of HTML."""
    symbols = collect(cards)
    groups: dict[str, list[Symbol]] = {}
    for symbol in symbols:
        groups.setdefault(symbol.group, []).append(symbol)
    bar = "".join(f'<a href="#sym-{g}" title="{html.escape(group_label(g))}">'
                  f'{"Other" if g == OTHER else group_label(g).split()[0]}</a>' for g in groups)
    sections = "".join(
        f'<section class="eqs-group" aria-labelledby="sym-{g}">'
        f'<h2 id="sym-{g}">{html.escape(group_label(g))}</h2>'
        + '<dl class="eqs-list">' + "".join(_entry(s) for s in members) + "</dl></section>"
        for g, members in groups.items())
    filter_box = ('<div class="eqs-filter" hidden><label for="eqs-filter">Filter symbols</label>'
                  '<input id="eqs-filter" type="search" autocomplete="off" '
                  'placeholder="a letter, a word or TeX: alpha, loss, \\theta">'
                  '<output id="eqs-count" aria-live="polite"></output></div>')
    intro = (f"{len(symbols)} symbols the cards define, each with the meanings the cards give it. "
             "The same letter can stand for different things in different fields: read its meanings "
             "side by side.")
    return "\n".join([
        "---", "title: Symbols", "---", "", "# Symbols", "", intro, "",
        f'<div class="eqs"><nav class="eqs-bar" aria-label="Jump to a letter">{bar}</nav>{filter_box}'
        f'<p class="eqs-none" hidden>No symbol matches.</p>{sections}</div>', "",
        '<script src="../javascripts/symbols.js" defer></script>', ""])
