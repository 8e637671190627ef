"""Stacking a too-wide formula into aligned lines (eqcards/typeset/stacking.py), measured by a
stand-in for MathJax: the TeX's length."""

from __future__ import annotations

from eqcards.typeset.stacking import split_parts, stack, tokenize


def fits_in(chars: int):
    return lambda tex: len(tex.replace(r"\begin{aligned}", "").replace(r"\end{aligned}", "")) <= chars


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
