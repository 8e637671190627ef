"""Spoken formulas: the words a screen reader says, read from the MathML tree in MathJax's SVG."""

from __future__ import annotations

import pytest

from eqcards.typeset.mathsvg import MathRenderer
from eqcards.typeset.speech import char_name, formula_tree, speak

CASES = [
    (r"D_{\mathrm{KL}}(P \,\Vert\, Q) = \sum_{x} P(x) \log \frac{P(x)}{Q(x)}",
     "D sub KL open paren P parallel Q close paren equals sum over x P open paren x close paren log of "
     "fraction, P open paren x close paren, over Q open paren x close paren, end fraction"),
    # Scripts by height, whatever order MathJax draws them in.
    (r"x_i^2 + \hat{y}_{t}^{3}", "x sub i squared plus y hat sub t cubed"),
    (r"\sum_{i=1}^{d} x_i", "sum from i equals 1 to d of x sub i"),
    (r"\textstyle\sum_{i=1}^{d} x_i", "sum from i equals 1 to d of x sub i"),
    (r"\frac{a}{b} + \frac{a+1}{b}",
     "a over b plus fraction, a plus 1, over b, end fraction"),
    (r"\sqrt{d_k} + \sqrt{\frac{1}{d}\sum_i x_i^2 + \epsilon}",
     "square root of d sub k, end root, plus square root of 1 over d sum over i x sub i squared "
     "plus epsilon, end root"),
    (r"\sqrt[3]{x}", "root of index 3 of x, end root"),
    (r"\binom{n}{k}", "open paren n choose k close paren"),
    (r"Q K^\top + W^{-1} + f'(x) + \pi^{\mathrm{ref}}",
     "Q K transpose plus W inverse plus f prime open paren x close paren plus pi superscript ref"),
    # Bars: a separator between operands, a norm or absolute value around one.
    (r"\|x\|_2 \|y\|_2 + |z| + p(y \mid x) + p(y | x)",
     "the norm of x end norm sub 2 the norm of y end norm sub 2 plus the absolute value of z "
     "end absolute value plus p open paren y given x close paren plus p open paren y given x close paren"),
    (r"\begin{cases} x & \text{if } x > 0 \\ 0 & \text{otherwise} \end{cases}",
     "cases: case 1: x, if x is greater than 0; case 2: 0, otherwise; end cases;"),
    (r"\mathcal{L} + \mathbb{E}_{x \sim p}[x] + \mathbf{W} + \boldsymbol{\theta} + \mathbb{R}^d",
     "script L plus expectation over x is distributed as p open bracket x close bracket plus bold W "
     "plus bold theta plus double-struck R superscript d"),
    (r"\theta^\ast = \arg\max_{\theta} J(\theta)",
     "theta star equals arg max over theta J open paren theta close paren"),
    (r"\underbrace{6d^2}_{Q,K,V} + \lambda \ell",
     "6 d squared, labelled Q comma K comma V, plus lambda ell"),
    # Tall and wide signs MathJax draws from pieces are read as the one sign they are.
    (r"f = \begin{cases} \frac{x}{1-p}, & \text{training} \\ x, & \text{otherwise} \end{cases}",
     "f equals cases: case 1: fraction, x, over 1 minus p, end fraction, comma, training; "
     "case 2: x comma, otherwise; end cases;"),
    (r"\underbrace{\{t-W+1,\dots,t\}}_{\text{recent window}} + \overline{x y}",
     "open brace t minus W plus 1 comma dot dot dot comma t close brace, labelled recent window, "
     "plus x y bar"),
    # Sized bars (\big\lVert, \big\lvert) are wrapped in a group of their own and read alike.
    (r"\big\lVert u - v \big\rVert^2 + \big\lvert a - b \big\rvert \le \lvert E_q \rvert",
     "the norm of u minus v end norm squared plus the absolute value of a minus b end absolute value "
     "is less than or equal to the absolute value of E sub q end absolute value"),
    # TeX that says what a bar is: \mid separates (inside an absolute value too), \lvert and \right|
    # open and close; a plain bar opens when a partner follows in its brackets (beta |x|).
    (r"\lvert \{ s \in S \mid c(s) \} \rvert + \left\vert \det \cdot \right\vert + \beta\, |x - 1| + p(y|x)",
     "the absolute value of open brace s in S given c open paren s close paren close brace "
     "end absolute value plus the absolute value of det dot end absolute value plus beta "
     "the absolute value of x minus 1 end absolute value plus p open paren y given x close paren"),
    (r"p_\theta(\cdot \mid x) + 1/|N(v)| + x/\lVert x \rVert + \lVert \cdot \rVert_c",
     "p sub theta open paren dot given x close paren plus 1 over the absolute value of N open paren v close "
     "paren end absolute value plus x over the norm of x end norm plus the norm of dot end norm sub c"),
    (r"h_{\parallel} + \frac{\partial L}{\partial E}\Big|_{x=0} + \mathrm{R}@k",
     "h sub parallel plus fraction, partial L, over partial E, end fraction, evaluated at x equals 0, "
     "plus R at k"),
    (r"z = \text{logits of \texttt{Query:} } q", "z equals logits of Query: q"),
    (r"p(x_t \mid x_{<t})", "p open paren x sub t given x sub less than t, end sub, close paren"),
    # A bar after an operator opens; it does not separate the operator from a term.
    (r"\max_m |a - b|", "max over m the absolute value of a minus b end absolute value"),
    (r"\left( \frac{a}{b} \right)^{2}", "open paren a over b close paren squared"),
    (r"\operatorname{softmax}(z)_i \le 1.5", "softmax of open paren z close paren sub i is less than or "
     "equal to 1.5"),
]


@pytest.fixture(scope="module")
def renderer() -> MathRenderer:
    return MathRenderer(None)


@pytest.mark.parametrize(("latex", "spoken"), CASES, ids=[c[0][:30] for c in CASES])
def test_a_formula_is_spoken_in_words(renderer: MathRenderer, latex: str, spoken: str) -> None:
    svg = renderer._raw(latex, True)
    assert speak(svg) == spoken


def test_the_speech_comes_with_the_svg_and_is_cached(tmp_path) -> None:
    first = MathRenderer(tmp_path)
    svg, speech = first.typeset(r"\alpha^2", True)
    assert speech == "alpha squared" and "data-mml-node" not in svg  # annotations dropped after
    again = MathRenderer(tmp_path)
    assert again.typeset(r"\alpha^2", True) == (svg, speech) and again.rendered == 0


@pytest.mark.parametrize(("char", "word"), [
    ("\u03b1", "alpha"), ("\u039b", "capital lambda"), ("\U0001d703", "theta"), ("\U0001d6fd", "beta"),
    ("\U0001d416", "bold W"), ("\U0001d7cf", "bold 1"), ("\u211d", "double-struck R"),
    ("\u2113", "ell"), ("\u2207", "nabla"), ("\u2299", "elementwise times"), ("\u2135", "alef symbol"),
])
def test_characters_have_names(char: str, word: str) -> None:
    assert char_name(char) == word


def test_an_svg_without_mathml_marks_is_refused() -> None:
    with pytest.raises(ValueError, match="data-mml-node"):
        formula_tree('<svg xmlns="http://www.w3.org/2000/svg"><g/></svg>')
