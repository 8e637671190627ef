"""What the characters and signs of a formula are called when read aloud (eqcards/speech.py reads
the formula's structure): operators, fences, powers, accents, styled and Greek letters."""

from __future__ import annotations

import unicodedata

# What an operator or fence says. Characters missing here are read by their Unicode name.
OPERATORS = {
    "=": "equals", "+": "plus", "\u2212": "minus", "-": "minus", "\u00b1": "plus or minus",
    "\u2213": "minus or plus", "\u00d7": "times", "\u22c5": "dot", "\u00b7": "dot", "*": "star",
    "\u2217": "star", "\u22c6": "star", "/": "over", "\u2215": "over", "\u00f7": "divided by",
    "<": "is less than", ">": "is greater than", "\u2264": "is less than or equal to",
    "\u2265": "is greater than or equal to", "\u2266": "is less than or equal to",
    "\u2267": "is greater than or equal to", "\u226a": "is much less than",
    "\u226b": "is much greater than", "\u2260": "is not equal to", "\u2248": "is approximately",
    "\u2243": "is asymptotically equal to", "\u2245": "is approximately equal to",
    "\u2261": "is equivalent to", "\u225c": "is defined as", "\u2254": "is defined as",
    "\u225d": "is defined as", "\u221d": "is proportional to", "\u223c": "is distributed as",
    "~": "is distributed as", "\u2272": "is at most about", "\u2273": "is at least about",
    "\u2192": "to", "\u27f6": "to", "\u2190": "gets", "\u27f5": "gets", "\u21a6": "maps to",
    "\u21dd": "leads to",
    "\u21d2": "implies", "\u27f9": "implies", "\u21d4": "if and only if", "\u27fa": "if and only if",
    "\u2208": "in", "\u2209": "not in", "\u220b": "contains", "\u2282": "subset of",
    "\u2286": "subset of or equal to", "\u2283": "superset of", "\u2287": "superset of or equal to",
    "\u222a": "union", "\u2229": "intersection", "\u2216": "set minus", "\u2205": "empty set",
    "\u2200": "for all", "\u2203": "there exists", "\u00ac": "not", "\u2227": "and", "\u2228": "or",
    "\u2295": "circle plus", "\u2297": "circle times", "\u2299": "elementwise times",
    "\u2218": "composed with", "\u2211": "sum", "\u220f": "product", "\u222b": "integral",
    "\u222e": "contour integral", "\u22c3": "union", "\u22c2": "intersection",
    "\u221e": "infinity", "\u2202": "partial", "\u2207": "nabla", "!": "factorial",
    "(": "open paren", ")": "close paren", "[": "open bracket", "]": "close bracket",
    "{": "open brace", "}": "close brace", "\u27e8": "open angle bracket",
    "\u27e9": "close angle bracket", "\u2308": "ceiling of", "\u2309": "end ceiling",
    "\u230a": "floor of", "\u230b": "end floor", "\u2223": "given", ",": "comma", ";": "semicolon",
    ":": "colon", "\u2026": "dot dot dot", "\u22ef": "dot dot dot", "\u22ee": "vertical dots",
    "\u22f1": "diagonal dots", "\u2032": "prime", "\u2033": "double prime", "'": "prime",
    "\u22a4": "top", "\u22a5": "bottom", "\u2020": "dagger", "%": "percent", "\u00b0": "degrees",
    "#": "number", "@": "at", "\u2225": "parallel", "\u2016": "double bar", "|": "vertical bar",
    "\U0001d53c": "expectation", "\U0001d7d9": "indicator", "\u2061": "of",
    "\u2062": "", "\u2063": "", "\u2064": "", "\u00a0": "", " ": "",
}
# A superscript that is a word of its own rather than "superscript ...".
POWERS = {"2": "squared", "3": "cubed", "top": "transpose", "T": "transpose", "prime": "prime",
          "double prime": "double prime", "star": "star", "dagger": "dagger", "minus 1": "inverse",
          "vertical bar": "vertical bar"}
# Accents drawn over (or under) a letter, said after it: "y hat".
ACCENTS = {"^": "hat", "\u02c6": "hat", "\u0302": "hat", "\u00af": "bar", "\u203e": "bar",
           "\u2015": "bar", "\u2013": "bar", "\u0304": "bar", "_": "bar", "~": "tilde",
           "\u02dc": "tilde", "\u0303": "tilde", "\u02d9": "dot", "\u0307": "dot", "\u00a8": "double dot",
           "\u0308": "double dot", "\u2192": "vector", "\u20d7": "vector", "\u02c7": "check",
           "\u02d8": "breve", "\u2032": "prime"}
NAMED = {"SCRIPT SMALL L": "ell", "PLANCK CONSTANT": "h", "MATHEMATICAL ITALIC NABLA": "nabla",
         "MATHEMATICAL ITALIC PARTIAL DIFFERENTIAL": "partial", "MATHEMATICAL BOLD NABLA": "bold nabla"}
GREEK_SPELLING = {"LAMDA": "lambda"}  # Unicode's spelling of the letter
STYLES = {"BOLD": "bold", "SCRIPT": "script", "FRAKTUR": "fraktur", "DOUBLE-STRUCK": "double-struck"}



def char_name(ch: str) -> str:
    """One character as a word: letters as themselves (styled letters with their style),
    Greek letters by name, anything else by its Unicode name."""
    if ch.isascii() and ch.isalnum():
        return ch
    if ch in OPERATORS:
        return OPERATORS[ch]
    name = unicodedata.name(ch, "")
    if not name:
        return "symbol"
    if name in NAMED:
        return NAMED[name]
    words = name.split()
    style = [STYLES[w] for w in words if w in STYLES]
    if "DIGIT" in words:
        return " ".join([*style, str(unicodedata.digit(ch))])
    capital = "CAPITAL" in words
    if capital or "SMALL" in words or (words[0] in {"GREEK", "MATHEMATICAL"} and words[-1] == "SYMBOL"):
        letter = words[-2] if words[-1] == "SYMBOL" else words[-1]
        if len(letter) == 1:  # Latin: the letter itself, in its case
            return " ".join([*style, letter if capital else letter.lower()])
        letter = GREEK_SPELLING.get(letter, letter.lower())
        return " ".join([*style, "capital " + letter if capital else letter])
    return name.lower()


# Pieces MathJax draws a tall delimiter or radical from, each standing for the whole sign.
PIECES = dict.fromkeys("\u239b\u239c\u239d", "(") | dict.fromkeys("\u239e\u239f\u23a0", ")") \
    | dict.fromkeys("\u23a1\u23a2\u23a3", "[") | dict.fromkeys("\u23a4\u23a5\u23a6", "]") \
    | dict.fromkeys("\u23a7\u23a8\u23a9\u23aa", "{") | dict.fromkeys("\u23ab\u23ac\u23ad", "}") \
    | dict.fromkeys("\u23b7\u221a", "\u221a") | dict.fromkeys("\u23d0\u2223", "\u2223")


# Stretched braces and bars over or under wide content: drawn as ends plus filler lines.
STRETCHED = {"\u23df": set("\u23df_\u2015\u2500\u203e\u00af\u23b5"),
             "\u23de": set("\u23de_\u2015\u2500\u203e\u00af\u23b4"),
             "\u00af": set("\u00af\u203e\u2015\u2500_\u2013")}


def sign(text: str) -> str:
    """An operator's text, with a tall or wide sign drawn in pieces read as the one sign it is."""
    if len(text) < 2:
        return text
    for sign, pieces in STRETCHED.items():
        if set(text) <= pieces and (sign in text or sign == "\u00af"):
            return sign
    signs = {PIECES.get(c, c) for c in text}
    if len(signs) == 1 and signs <= set("()[]{}\u221a\u2223|\u2016\u2225"):
        return signs.pop()
    return text


def script_letter(c: str) -> str:
    case = "CAPITAL" if c.isupper() else "SMALL"
    for name in (f"MATHEMATICAL SCRIPT {case} {c.upper()}", f"SCRIPT {case} {c.upper()}"):
        try:
            return unicodedata.lookup(name)
        except KeyError:
            continue
    return c
