"""Stacking a too-wide formula into aligned lines (eqcards/typeset/stacking.py), measured by a
stand-in for MathJax: the TeX's length, row by row."""

from __future__ import annotations

from eqcards.typeset.stacking import split_parts, stack, tokenize


def fits_in(chars: int):
    """Whether the widest line, in characters of TeX, is at most `chars` (as MathJax would measure
    the widest row of an aligned block: the widest left side plus the widest right side)."""
    def fits(tex: str) -> bool:
        block = tex.removeprefix(r"\begin{aligned}").removesuffix(r"\end{aligned}")
        rows = [row.partition("&") for row in block.split(r" \\ ")] if block != tex else [("", "", tex)]
        widest_left = max(len(left.strip()) for left, _, _ in rows)
        return widest_left + max(len(right) for _, _, right in rows) <= chars
    return fits


def test_a_formula_that_fits_is_left_as_written() -> None:
    assert stack(r"a = b + c", fits_in(80)) == r"a = b + c"


def test_parts_go_one_per_line_aligned_at_their_relation() -> None:
    lion = r"c_t = \beta_1 m + g_t, \qquad \theta_t = \theta - \eta\, c_t, \qquad m_t = \beta_2 m + g_t"
    assert stack(lion, fits_in(40)) == (r"\begin{aligned}c_t &= \beta_1 m + g_t, \\ \theta_t &= \theta - "
                                        r"\eta\, c_t, \\ m_t &= \beta_2 m + g_t\end{aligned}")


def test_commas_inside_groups_and_parentheses_never_split() -> None:
    parts = split_parts(tokenize(r"h = f\big(x,\; y\big) + \frac{a,\ b}{c}, \quad g = (u,\ v)"))
    assert ["".join(t.text for t in p).strip() for p in parts] == [
        r"h = f\big(x,\; y\big) + \frac{a,\ b}{c},", r"g = (u,\ v)"]


def test_a_long_right_side_breaks_before_a_plus_never_inside_plain_parentheses() -> None:
    out = stack(r"L = a_1 + (b_1 + b_2) + c_1 + d_1", fits_in(24))
    assert out.startswith(r"\begin{aligned}L &= ") and r"\\ &\quad + " in out
    assert "(b_1 + b_2)" in out  # a plain parenthesis is kept whole
    assert r"&\quad - " not in stack(r"x = -a + b", fits_in(8))  # a sign is not an operation


def test_an_implication_starts_a_line_of_its_own() -> None:
    out = stack(r"x' = A x \;\Longrightarrow\; x_k = \bar{A} x_{k-1}", fits_in(20))
    assert r"\\ \Longrightarrow\; x_k &= \bar{A} x_{k-1}" in out


def test_a_formula_with_cases_is_stacked_around_them() -> None:
    relu = (r"\operatorname{ReLU}(x) = \max(0, x), \qquad \operatorname{ReLU}'(x) = \begin{cases} 1, & x > 0 "
            r"\\ 0, & x < 0 \end{cases}")
    out = stack(relu, fits_in(70))
    assert out.startswith(r"\begin{aligned}\operatorname{ReLU}(x) &= \max(0, x), \\ ")
    assert out.count(r"\begin{cases}") == 1  # the environment is kept whole, on one line


def test_a_formula_written_as_one_aligned_block_is_restacked() -> None:
    out = stack(r"\begin{aligned} f &= a + b, \qquad g = c \\ h &= d \end{aligned}", fits_in(20))
    assert out == r"\begin{aligned}f &= a + b, \\ g &= c \\ h &= d\end{aligned}"


def test_a_long_phrase_breaks_between_its_words() -> None:
    out = stack(r"h = \text{keeps the closest nodes and expands the nearest}", fits_in(30))
    assert r"\\ &\quad \text{" in out and r"\text{closest }" in out
    assert "".join(out.split(r"\text{")).count("nearest") == 1


def test_a_left_right_pair_cut_by_a_line_is_closed_and_reopened_as_tall() -> None:
    out = stack(r"y = \left[ a + \frac{b}{c} + d \right]", fits_in(30))
    strut = r"\vphantom{a + \frac{b}{c} + d}"
    # each cut closes the line above and reopens the next, each half with the whole as a strut
    assert out.count(r"\right.") == out.count(r"\left.") >= 1
    assert out.count(strut) == 2 * out.count(r"\right.") and r"\right. \\ &\quad \left. " + strut in out
    assert out.endswith(r"+ d \right]\end{aligned}") or out.endswith(r"+ d\right]\end{aligned}")


def test_a_product_breaks_at_the_space_between_factors_never_after_an_operator() -> None:
    out = stack(r"N = (2\pi)^{-d/2} \, (\det \Sigma)^{-1/2} \exp\!\left(-\tfrac{1}{2} x\right)", fits_in(40))
    assert r"(2\pi)^{-d/2} \\ &\quad (\det \Sigma)^{-1/2}" in out
    sums = stack(r"L = \sum_{i=1}^{n} \log p_i + \sum_{j} q_j", fits_in(26))
    assert r"\sum_{i=1}^{n} \log p_i" in sums  # a sum keeps its operand


def test_a_long_left_side_gets_lines_of_its_own() -> None:
    out = stack(r"\max_{D} \mathbb{E}_{x}\big[D(x)\big] - \mathbb{E}_{z}\big[D(G(z))\big] = \min_G W_1(p, q)",
                fits_in(44))
    assert out.startswith(r"\begin{aligned} &\max_{D}") and r"&\quad = \min_G W_1(p, q)" in out


def test_a_long_left_side_that_pushes_the_other_lines_right_gets_its_own_line() -> None:
    out = stack(r"a = b + c + d + e + f, \qquad \text{since}\ g + h + i = j", fits_in(32))
    assert r"\text{since}\ g + h + i \\ &\quad = j" in out
    assert r"a &= b" in out or r"a &=b" in out


def test_a_case_whose_value_has_a_where_clause_grows_down_when_nothing_else_fits() -> None:
    cosine = (r"\eta = \begin{cases} a, & t < T \\[6pt] b + c + e, \quad \tau = d + f + g, & T \le t "
              r"\end{cases}")
    out = stack(cosine, fits_in(50))
    assert r"\begin{aligned}&b + c + e, \\ &\quad \tau = d + f + g,\end{aligned} & T \le t" in out
    assert r"a, & t < T \\[6pt]" in out  # a row with nothing to split is kept, with its spacing
    assert stack(cosine, fits_in(len(cosine))) == cosine  # only where the formula is too wide


def test_a_numerator_too_wide_alone_is_set_as_lines_over_its_bar() -> None:
    out = stack(r"P = \frac{\sum_{i} a_i + b_i + c_i + d_i + e_i + f_i}{n}", fits_in(30))
    assert r"\frac{\begin{aligned}&\sum_{i} a_i" in out and r"\\ &\quad + " in out
    assert out.endswith(r"\end{aligned}}{n}") or out.endswith(r"\end{aligned}}{n}\end{aligned}")


def test_a_left_side_stays_at_its_relation_when_moving_it_would_not_make_the_block_fit() -> None:
    out = stack(r"\text{stop when } v = w; \qquad x\_abcdefghijklmnopqrstuvwxyz", fits_in(24))
    assert r"\text{stop when } v &= w;" in out
