"""Small helpers that make generated Markdown safe: escape text but keep its $math$ intact."""

from __future__ import annotations

import html
import re
from collections.abc import Callable

MATH_SPAN = re.compile(r"(\$[^$]+\$)")


def text(value: str) -> str:
    """Escape HTML in plain text so a '<script>' in a title renders as text, not markup."""
    return html.escape(value, quote=True)


def text_with_math(value: str) -> str:
    """Escape the prose parts only; arithmatex escapes the $...$ parts itself. Script notation in
    the prose (x_t, A^π; see scripts_html) becomes <sub>/<sup>; `code` is left as it is."""
    parts = MATH_SPAN.split(value)
    return "".join(p if i % 2 else _prose_html(p) for i, p in enumerate(parts))


CODE_SPAN = re.compile(r"(`+)(.+?)\1", re.S)


def _outside_code(value: str, prose: Callable[[str], str]) -> str:
    """`value` with prose() applied to all but its Markdown code spans, which stay as written."""
    parts = CODE_SPAN.split(value)  # prose, fence, code, prose, ...
    return "".join(prose(p) if i % 3 == 0 else (p + parts[i + 1] + p if i % 3 == 1 else "")
                   for i, p in enumerate(parts))


def _prose_html(value: str) -> str:
    return _outside_code(value, scripts_html)


def prose_with_math(value: str) -> str:
    """Plain text with $math$, for a Markdown paragraph or list item: escaped as text_with_math, and
    a '*' in the prose (lambda* or p* in a note) kept as a star, never turned into emphasis."""
    parts = MATH_SPAN.split(text_with_math(value))
    return "".join(p if i % 2 else _outside_code(p, lambda s: s.replace("*", r"\*"))
                   for i, p in enumerate(parts))


def code_span(value: str) -> str:
    """Inline code that holds any text, backticks included."""
    fence = "`" * (max((len(run) for run in re.findall(r"`+", value)), default=0) + 1)
    pad = " " if value.startswith("`") or value.endswith("`") else ""
    return f"{fence}{pad}{value}{pad}{fence}"


def cell(value: str) -> str:
    r"""Text that is safe inside a Markdown table cell: a '|' would end the cell. In prose it is
    escaped; inside $math$ it becomes \vert, since an escaped bar reaches TeX as \| (the double
    bar of a norm), which would change the formula."""
    parts = MATH_SPAN.split(text_with_math(value))
    safe = (_math_bars(p) if i % 2 else p.replace("|", r"\|") for i, p in enumerate(parts))
    return "".join(safe).replace("\n", " ")


def _math_bars(math: str) -> str:
    r"""'|' in TeX as \vert (and '\|' as \Vert), spaced from a letter that follows only: a space
    before the closing '$' would keep arithmatex from reading the span as math at all."""
    return re.sub(r"(\\?)\|(?=([A-Za-z])?)",
                  lambda m: ("\\Vert" if m.group(1) else "\\vert") + (" " if m.group(2) else ""), math)


def inline_math(latex: str) -> str:
    r"""LaTeX as inline math; a '|' would split a table cell, so it becomes \vert."""
    return "$" + _math_bars(latex).strip() + "$"


def display_math(latex: str) -> str:
    return "$$\n" + latex.strip() + "\n$$"


# --- One renderer for reader-facing text ----------------------------------------------------------
# Card text (titles, summaries, meanings, notes, locators) is prose with $TeX$ spans and, outside
# them, the plain-text script notation authors type: x_t, d_k, A^π, x_{t-1}, σ^(1/ρ). Where the
# page holds markup, prose_with_math and cell keep $math$ for the build to typeset and turn the
# notation into <sub>/<sup>; where it cannot (<title>, meta tags, search teasers, a plain-text
# citation), plain() writes the same text as Unicode, the math included, with no TeX left.

SUPERSCRIPT = dict(zip("0123456789+−-=()abcdefghijklmnoprstuvwxyzABDEGHIJKLMNOPRTUVWβγδθιφχε⊤*′",
                       "⁰¹²³⁴⁵⁶⁷⁸⁹⁺⁻⁻⁼⁽⁾ᵃᵇᶜᵈᵉᶠᵍʰⁱʲᵏˡᵐⁿᵒᵖʳˢᵗᵘᵛʷˣʸᶻᴬᴮᴰᴱᴳᴴᴵᴶᴷᴸᴹᴺᴼᴾᴿᵀᵁⱽᵂᵝᵞᵟᶿᶥᵠᵡᵋᵀ*′",
                       strict=True))
SUBSCRIPT = dict(zip("0123456789+−-=()aehijklmnoprstuvxβγρφχ",
                     "₀₁₂₃₄₅₆₇₈₉₊₋₋₌₍₎ₐₑₕᵢⱼₖₗₘₙₒₚᵣₛₜᵤᵥₓᵦᵧᵨᵩᵪ", strict=True))
# A script operand in prose: a {group}, a (group) or [group], or an optionally signed run of
# letters and digits (a decimal number whole), with combining accents and primes; or one symbol.
_RUN = r"[-−+]?(?:\d+\.\d+|(?:[^\W_]|[\u0300-\u036f])+)['′]*|[*∗+′⊤†∞∥⊥]"
_MARKER = re.compile(r"(?<=\S)([_^])")


def _group_end(text: str, start: int) -> int:
    """The index just past the bracket group opening at `start`, or -1 if it never closes."""
    pairs = {"{": "}", "(": ")", "[": "]"}
    depth, opening, closing = 0, text[start], pairs[text[start]]
    for i in range(start, len(text)):
        depth += (text[i] == opening) - (text[i] == closing)
        if depth == 0:
            return i + 1
    return -1


def _script_at(text: str, at: int) -> tuple[str, str, int] | None:
    """The script whose marker (_ or ^) is text[at]: (marker, operand, end), the operand without
    the braces or parentheses that group it; None where the mark is no script: snake_case words
    (weight_decay), a marker with nothing after it."""
    rest = at + 1
    if rest >= len(text) or at == 0 or text[at - 1].isspace():
        return None
    if re.search(r"(?:://|www\.)\S*$", text[:at]):
        return None  # part of an address
    if text[rest] in "{([":
        end = _group_end(text, rest)
        if end < 0:
            return None
        inner = text[rest + 1:end - 1]
        return text[at], (inner if text[rest] != "[" else text[rest:end]), end
    run = re.match(_RUN, text[rest:])
    if not run:
        return None
    base = re.search(r"[A-Za-z]+$", text[:at])
    word = run.group().rstrip("'′")
    if base and len(base.group()) >= 2 and base.group().islower() and re.fullmatch(r"[a-z0-9]{2,}|\d", word):
        return None  # an identifier: weight_decay, rank_bm25, in_channels, softmax_1 (but max_a is a script)
    return text[at], run.group(), rest + run.end()


def _with_scripts(text: str, prose: Callable[[str], str], script: Callable[[str, str, str], str]) -> str:
    """`text` with every script rendered by script(marker, rendered operand, operand), the text
    around them by prose()."""
    out, start, at = [], 0, 0
    while (found := _MARKER.search(text, at)) is not None:
        hit = _script_at(text, found.start())
        if hit is None:
            at = found.end()
            continue
        marker, operand, end = hit
        inner = _with_scripts(operand, prose, script)
        out += [prose(text[start:found.start()]), script(marker, inner, operand)]
        start = at = end
    return "".join(out) + prose(text[start:])


def scripts_html(text: str) -> str:
    """Plain text, HTML-escaped, with its script notation as <sub> and <sup>."""
    tags = {"_": "sub", "^": "sup"}
    return _with_scripts(text, lambda s: html.escape(s, quote=False),  # in a script, - is a minus
                         lambda m, inner, _: f"<{tags[m]}>{inner.replace('-', '−')}</{tags[m]}>")


def unicode_script(marker: str, content: str) -> str:
    """A script in plain text: Unicode super- or subscript characters where all exist (dₖ, γᵏ,
    xₜ₋₁); a Greek superscript written after its base (Aπ); otherwise the marker, with the operand
    in parentheses unless it is one word (π_θ, p_data, 2^S, e^(−λt))."""
    table = SUPERSCRIPT if marker == "^" else SUBSCRIPT
    content = content.strip()
    compact = content.replace(" ", "")
    if compact and all(ch in table for ch in compact):
        return "".join(table[ch] for ch in compact)
    if marker == "^" and re.fullmatch(r"[^\W\d_A-Za-z][\u0300-\u036f'′]*", compact):
        return compact  # a Greek superscript follows its base: Aπ, Qπ, as plain text writes them
    grouped = re.fullmatch(r"[^\W_]+", compact) or (compact[:1] == "[" and compact[-1:] == "]")
    return marker + (content if grouped else f"({content})")


def _plain_prose(text: str) -> str:
    """Prose outside math: script notation as Unicode; Markdown code spans as their text."""
    return _with_scripts(text.replace("`", ""), lambda s: s, lambda m, inner, _: unicode_script(m, inner))


def plain(value: str) -> str:
    """Reader-facing text where no markup can go: <title>, meta tags, search results, a plain-text
    citation. $TeX$ becomes readable Unicode ($\\Delta$ -> Δ, $r - \\lambda c$ -> r − λc), and so
    does the script notation (A^π -> Aπ, d_k -> dₖ): no $, backslash command or grouping brace
    is left."""
    parts = MATH_SPAN.split(value)
    return " ".join("".join(tex_to_text(p[1:-1]) if i % 2 else _plain_prose(p)
                            for i, p in enumerate(parts)).split())


# TeX commands as text. Operators and relations are spaced in the output; functions are words.
GREEK = {name: chr(code) for name, code in (
    ("alpha", 0x3B1), ("beta", 0x3B2), ("gamma", 0x3B3), ("delta", 0x3B4), ("epsilon", 0x3B5),
    ("varepsilon", 0x3B5), ("zeta", 0x3B6), ("eta", 0x3B7), ("theta", 0x3B8), ("vartheta", 0x3D1),
    ("iota", 0x3B9), ("kappa", 0x3BA), ("lambda", 0x3BB), ("mu", 0x3BC), ("nu", 0x3BD), ("xi", 0x3BE),
    ("pi", 0x3C0), ("varpi", 0x3D6), ("rho", 0x3C1), ("varrho", 0x3F1), ("sigma", 0x3C3),
    ("varsigma", 0x3C2), ("tau", 0x3C4), ("upsilon", 0x3C5), ("phi", 0x3D5), ("varphi", 0x3C6),
    ("chi", 0x3C7), ("psi", 0x3C8), ("omega", 0x3C9), ("Gamma", 0x393), ("Delta", 0x394),
    ("Theta", 0x398), ("Lambda", 0x39B), ("Xi", 0x39E), ("Pi", 0x3A0), ("Sigma", 0x3A3),
    ("Upsilon", 0x3A5), ("Phi", 0x3A6), ("Psi", 0x3A8), ("Omega", 0x3A9))}
BINARY = {"times": "×", "cdot": "·", "pm": "±", "mp": "∓", "circ": "∘", "odot": "⊙", "oplus": "⊕",
          "otimes": "⊗", "cup": "∪", "cap": "∩", "setminus": "∖", "wedge": "∧", "land": "∧",
          "vee": "∨", "lor": "∨", "div": "÷", "ast": "∗", "star": "⋆", "bmod": "mod"}
RELATION = {"le": "≤", "leq": "≤", "ge": "≥", "geq": "≥", "ne": "≠", "neq": "≠", "approx": "≈",
            "sim": "∼", "simeq": "≃", "equiv": "≡", "propto": "∝", "in": "∈", "notin": "∉", "ni": "∋",
            "subset": "⊂", "subseteq": "⊆", "supset": "⊃", "supseteq": "⊇", "to": "→",
            "rightarrow": "→", "leftarrow": "←", "gets": "←", "mapsto": "↦", "Rightarrow": "⇒",
            "implies": "⇒", "Leftrightarrow": "⇔", "iff": "⇔", "ll": "≪", "gg": "≫", "mid": "|",
            "coloneqq": "≔", "triangleq": "≜", "perp": "⊥", "parallel": "∥", "models": "⊨"}
SYMBOL = {"infty": "∞", "partial": "∂", "nabla": "∇", "ell": "ℓ", "top": "⊤", "intercal": "⊤",
          "prime": "′", "forall": "∀", "exists": "∃", "neg": "¬", "lnot": "¬", "emptyset": "∅",
          "varnothing": "∅", "dots": "…", "ldots": "…", "cdots": "⋯", "vdots": "⋮", "ddots": "⋱",
          "langle": "⟨", "rangle": "⟩", "lceil": "⌈", "rceil": "⌉", "lfloor": "⌊", "rfloor": "⌋",
          "lvert": "|", "rvert": "|", "vert": "|", "lVert": "‖", "rVert": "‖", "Vert": "‖",
          "sum": "Σ", "prod": "Π", "int": "∫", "oint": "∮", "hbar": "ℏ", "aleph": "ℵ", "dagger": "†",
          "uparrow": "↑", "downarrow": "↓", "angle": "∠", "triangle": "△", "square": "□",
          "checkmark": "✓", "bullet": "•", "And": "&"}
FUNCTION = {"log", "ln", "exp", "min", "max", "arg", "argmin", "argmax", "sin", "cos", "tan", "tanh",
            "sinh", "cosh", "det", "dim", "ker", "sup", "inf", "lim", "liminf", "limsup", "Pr", "gcd",
            "deg", "sgn", "tr", "diag", "softmax", "KL", "sech", "arctan", "erf", "lg"}
ACCENT = {"hat": "\u0302", "widehat": "\u0302", "bar": "\u0304", "overline": "\u0305", "tilde": "\u0303",
          "widetilde": "\u0303", "dot": "\u0307", "ddot": "\u0308", "vec": "\u20d7", "check": "\u030c",
          "breve": "\u0306", "acute": "\u0301", "grave": "\u0300"}
STYLE = {"mathrm", "mathit", "mathbf", "mathsf", "mathtt", "boldsymbol", "bm", "mathnormal", "textbf",
         "textit", "textrm", "emph", "mathscr", "mathfrak", "operatorname", "text", "mbox", "textsf",
         "texttt", "displaystyle", "textstyle", "scriptstyle"}
IGNORED = {"left", "right", "big", "Big", "bigg", "Bigg", "bigl", "bigr", "Bigl", "Bigr", "biggl",
           "biggr", "Biggl", "Biggr", "middle", "limits", "nolimits", "displaystyle", "textstyle",
           "scriptstyle", "mathclap", "phantom", "quad", "qquad", "nonumber", "notag"}
BLACKBOARD = {"R": "ℝ", "N": "ℕ", "Z": "ℤ", "Q": "ℚ", "C": "ℂ", "P": "ℙ", "H": "ℍ", "E": "𝔼", "1": "𝟙"}
CALLIGRAPHIC = {"B": "ℬ", "E": "ℰ", "F": "ℱ", "H": "ℋ", "I": "ℐ", "L": "ℒ", "M": "ℳ", "R": "ℛ"}
TEX_TOKEN = re.compile(r"\\[A-Za-z]+\*?|\\.|\s+|.", re.S)
_OPEN, _CLOSE = "([⟨⌈⌊{", ")]⟩⌉⌋}"


def _calligraphic(ch: str) -> str:
    if ch in CALLIGRAPHIC:
        return CALLIGRAPHIC[ch]
    return chr(0x1D49C + ord(ch) - ord("A")) if "A" <= ch <= "Z" else ch


def _blackboard(ch: str) -> str:
    if ch in BLACKBOARD:
        return BLACKBOARD[ch]
    return chr(0x1D538 + ord(ch) - ord("A")) if "A" <= ch <= "Z" else ch


class _TexText:
    """TeX math read token by token into atoms (kind, text), joined with readable spacing."""

    def __init__(self, latex: str) -> None:
        self.tokens = [t for t in TEX_TOKEN.findall(latex)]
        self.at = 0

    def next(self) -> str | None:
        while self.at < len(self.tokens) and self.tokens[self.at].isspace():
            self.at += 1
        if self.at >= len(self.tokens):
            return None
        self.at += 1
        return self.tokens[self.at - 1]

    def raw_group(self) -> str:
        """A {group}'s source, or one token, as written (for text-mode content)."""
        while self.at < len(self.tokens) and self.tokens[self.at].isspace():
            self.at += 1
        if self.at < len(self.tokens) and self.tokens[self.at] == "{":
            depth, start = 0, self.at
            for i in range(self.at, len(self.tokens)):
                depth += (self.tokens[i] == "{") - (self.tokens[i] == "}")
                if depth == 0:
                    self.at = i + 1
                    return "".join(self.tokens[start + 1:i])
            self.at = len(self.tokens)
            return "".join(self.tokens[start + 1:])
        token = self.next()
        return token or ""

    def argument(self, compact: bool = False) -> str:
        """The next argument (a {group} or one token) as text; compact (unspaced) for a script."""
        return _TexText(self.raw_group()).text(compact)

    def atoms(self, stop: str | None = None) -> list[tuple[str, str]]:
        out: list[tuple[str, str]] = []
        while (token := self.next()) is not None:
            if token == stop:
                break
            if token == "{":
                inner = self.atoms("}")
                out.append(("ord", _join(inner, compact=False)) if inner else ("ord", ""))
            elif token in "^_":
                operand = self.argument(compact=True)
                kind, base = out.pop() if out else ("ord", "")
                out.append((kind, base + unicode_script(token, operand)))
            elif token in ("'", "′"):
                kind, base = out.pop() if out else ("ord", "")
                out.append((kind, base + "′"))
            elif token.startswith("\\"):
                out += self.command(token[1:].rstrip("*"))
            elif token in "+-−*/":
                out.append(("bin", "−" if token == "-" else token) if token != "/" else ("ord", "/"))
            elif token in "=<>":
                out.append(("rel", token))
            elif token in ",;":
                out.append(("punct", token))
            elif token == "&":
                out.append(("space", " "))
            elif token == "~":
                out.append(("space", " "))
            elif token in _OPEN:
                out.append(("open", token))
            elif token in _CLOSE:
                out.append(("close", token))
            else:
                out.append(("ord", token))
        return out

    def command(self, name: str) -> list[tuple[str, str]]:
        if name in GREEK:
            return [("ord", GREEK[name])]
        if name in BINARY:
            return [("bin", BINARY[name])]
        if name in RELATION:
            return [("rel", RELATION[name])]
        if name in SYMBOL:
            return [("big" if name in ("sum", "prod", "int", "oint") else
                     "open" if name in ("langle", "lceil", "lfloor") else
                     "close" if name in ("rangle", "rceil", "rfloor") else "ord", SYMBOL[name])]
        if name in FUNCTION:
            return [("fn", name)]
        if name in ("frac", "tfrac", "dfrac", "cfrac"):
            top, bottom = self.argument(), self.argument()
            return [("frac", f"{_grouped(top)}/{_grouped(bottom)}")]
        if name == "binom":
            top, bottom = self.argument(), self.argument()
            return [("ord", f"C({top}, {bottom})")]
        if name == "sqrt":
            index = ""
            if self.at < len(self.tokens) and self.tokens[self.at] == "[":
                close = self.tokens.index("]", self.at)
                index = unicode_script("^", "".join(self.tokens[self.at + 1:close]))
                self.at = close + 1
            return [("ord", f"{index}√{_grouped(self.argument())}")]
        if name in ACCENT:
            body = self.argument()
            return [("ord", "".join(ch + ACCENT[name] for ch in body) if len(body) > 1 and name in (
                "overline", "widehat", "widetilde") else body + ACCENT[name])]
        if name == "mathbb":
            return [("ord", "".join(map(_blackboard, self.argument())))]
        if name == "mathcal":
            return [("ord", "".join(map(_calligraphic, self.argument())))]
        if name in ("text", "mbox", "textrm", "textit", "textbf", "textsf", "texttt", "emph"):
            return [("text", " ".join(_plain_prose(self.raw_group()).split(" ")))]
        if name == "operatorname":
            return [("fn", self.argument())]
        if name in STYLE:
            return [("ord", self.argument())]
        if name in ("underbrace", "overbrace", "underset", "overset", "stackrel"):
            if name in ("underset", "overset", "stackrel"):
                self.raw_group()  # the annotation above or below
            return [("ord", self.argument())]
        if name in ("begin", "end"):
            self.raw_group()
            return []
        if name in ("left", "right", "bigl", "bigr", "big", "Big", "bigg", "Bigg", "Bigl", "Bigr",
                    "biggl", "biggr", "Biggl", "Biggr", "middle"):
            if self.at < len(self.tokens) and self.tokens[self.at] == ".":
                self.at += 1  # \left. is no delimiter
            return []
        if name in ("quad", "qquad"):
            return [("space", " ")]
        if name in IGNORED or name in ("mathclap", "phantom"):
            return []
        if len(name) == 1 and not name.isalpha():  # \, \; \! \{ \} \| \% \#
            return {",": [("space", " ")], ";": [("space", " ")], ":": [("space", " ")],
                    " ": [("space", " ")], "!": [], "{": [("open", "{")], "}": [("close", "}")],
                    "|": [("ord", "‖")], "\\": [("punct", ";")]}.get(name, [("ord", name)])
        return [("ord", name)]  # an unknown command: its name, never a backslash

    def text(self, compact: bool = False) -> str:
        return _join(self.atoms(), compact)


# Text that ends in a script (a Unicode super- or subscript, or one written with its marker).
_SCRIPTED = re.compile("[" + "".join(sorted(set(SUPERSCRIPT.values()) | set(SUBSCRIPT.values())
                                            - {"*", "′"})) + r"]$|[_^]\S*$")


def _grouped(text: str) -> str:
    """An operand of / or √: in parentheses unless it is one symbol, word or number."""
    return text if re.fullmatch(r"[√∂∇]?(?:[^\W_]|[\u0300-\u036f.′]|[⁰-₟ᴬ-ᶿ])+", text) or (
        text[:1] in "(⟨[" and _group_end(text.replace("⟨", "(").replace("⟩", ")"), 0) == len(text)) \
        else f"({text})"


def _join(atoms: list[tuple[str, str]], compact: bool) -> str:
    """Atoms as text: relations and binary operators between spaces (none inside a script),
    a minus sign with nothing before it unary, a space after a comma, functions spaced as words."""
    out = ""
    previous = None
    for kind, text in atoms:
        if kind == "bin" and previous in (None, "bin", "rel", "open", "punct", "big"):
            kind = "ord"  # a sign: -x, (−1), = −λt
        if compact:
            out += text
        elif kind in ("bin", "rel"):
            out = out.rstrip() + f" {text} "
        elif kind == "punct":
            out = out.rstrip() + text + " "
        elif kind == "space":
            out += " "
        elif kind in ("fn", "big"):
            out += (" " if out and (out[-1].isalnum() or out[-1] in ")]}′|") else "") + text
        elif kind == "text":
            out += text
        elif kind == "frac":  # 1/2 x, not 1/2x
            out += (" " if out and previous in ("ord", "frac", "close") else "") + text
        else:
            if previous == "frac" and (text[:1].isalnum() or text[:1] in "√("):
                out += " "
            elif previous == "ord" and text[:1].isalnum() and _SCRIPTED.search(out):
                out += " "  # xᵢ yᵢ, d_model T_warm: not xᵢyᵢ, d_modelT_warm
            if previous in ("fn", "big") and text[:1] not in "([{⟨|":
                out += " "
            out += text
        previous = kind
    return " ".join(out.split())


def tex_to_text(latex: str) -> str:
    """TeX math as readable Unicode text: $\\Delta$ -> Δ, $r - \\lambda c$ -> r − λc,
    $x_{\\min}$ -> xₘᵢₙ, $\\frac{1}{1-p}$ -> 1/(1 − p)."""
    return _TexText(latex).text()
