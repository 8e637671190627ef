"""Formulas that MathJax cannot typeset fail the build, naming the card file and line."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import Project, card_markdown

from eqcards.cards.load import parse_card
from eqcards.typeset.latex import check_latex, prose_formulas
from eqcards.typeset.mathsvg import LatexError, MathRenderer, typeset_html

BODY = """Intro with $\\alpha + \\beta$ inline.

Code is skipped: `$not math$` and

```python
x = "$also not math$"
```

$$
\\sum_i x_i
$$
Then $\\notamacro{x}$ here.
"""


def write(tmp_path: Path, **changes: object):
    path = tmp_path / "toy-entropy.md"
    path.write_text(card_markdown(**changes), encoding="utf-8")
    return path, parse_card(path)


def test_prose_formulas_skip_code_and_keep_lines(tmp_path: Path) -> None:
    _, card = write(tmp_path)
    card.body, card.body_line = BODY, 30
    found = list(prose_formulas(card))
    assert [(latex.strip(), line, display) for latex, line, display in found] == [
        ("\\sum_i x_i", 38, True), ("\\alpha + \\beta", 30, False), ("\\notamacro{x}", 41, False)]


def test_bad_formulas_are_reported_with_file_and_line(tmp_path: Path) -> None:
    path, card = write(tmp_path, equation="\\frac{a}{b", symbols=[{"symbol": "\\foo", "meaning": "m"}])
    card.body, card.body_line = BODY, 30
    errors = check_latex([card], MathRenderer(tmp_path / "math"))
    messages = {(e.line, e.message.split(":")[0]) for e in errors}
    text = path.read_text().splitlines()
    equation_line = next(i for i, t in enumerate(text, 1) if t.startswith("equation:"))
    assert (equation_line, "LaTeX in equation does not typeset") in messages
    assert any("Missing close brace" in e.message for e in errors)
    assert any(e.message.startswith("LaTeX in symbols") and "\\foo" in e.message for e in errors)
    assert any(e.line == 41 and "\\notamacro" in e.message for e in errors)
    assert all(e.path == path for e in errors)


def test_only_good_formulas_are_cached_and_damage_is_not_trusted(tmp_path: Path) -> None:
    renderer = MathRenderer(tmp_path / "math")
    with pytest.raises(LatexError, match="Extra open brace"):
        renderer.svg("a^{b")
    svg = renderer.svg("a^{b}")
    assert svg.startswith("<svg") and renderer.rendered == 1
    entries = list((tmp_path / "math").rglob("*.json"))
    assert len(entries) == 1
    entries[0].write_text(entries[0].read_text().replace("<svg", "<svX"))
    again = MathRenderer(tmp_path / "math")
    assert again.svg("a^{b}") == svg and again.rendered == 1  # re-rendered, not served


def test_typeset_html_replaces_arithmatex_with_labelled_svg(tmp_path: Path) -> None:
    page = ('<p>Inline <span class="arithmatex">\\(x &lt; y\\)</span>.</p>'
            '<div class="arithmatex">\\[\\frac{a}{b}\\]</div>')
    out = typeset_html(page, MathRenderer(None))
    assert out.count('class="eqc-math"') == 2
    assert out.count("<path") == 2 and "<use" not in out  # flat (svgflat): no shared glyphs needed
    assert 'aria-label="x is less than y"' in out and 'data-tex="x &lt; y"' in out
    assert '<span class="eqc-tex" hidden>\\[\\frac{a}{b}\\]</span>' in out
    with pytest.raises(LatexError, match="undefined control sequence"):
        typeset_html('<span class="arithmatex">\\(\\nosuchmacro\\)</span>', MathRenderer(None))


def test_build_fails_on_bad_latex_in_the_cheatsheet_form(project: Project) -> None:
    project.add_card("toy-entropy")
    assert project.build().returncode == 0  # a warm cache, which the failing build must not change
    before = project.snapshot()
    assert any(name.startswith("math/") for name in before)
    project.add_card("toy-entropy", cheatsheet={"label": "Entropy", "latex": "H = \\left( p"})
    result = project.build()
    assert result.returncode != 0
    assert "docs/cards/toy-entropy.md:" in result.stderr
    assert "LaTeX in cheatsheet.latex does not typeset" in result.stderr
    assert project.snapshot() == before


def test_prerender_fills_the_cache_in_parallel(tmp_path: Path) -> None:
    from eqcards.typeset.mathsvg import prerender

    formulas = [(f"x_{{{i}}} + \\alpha^{i}", i % 2 == 0) for i in range(60)] + [("\\frac{a}{b", True)]
    assert prerender(formulas, tmp_path / "math", workers=2) == 61
    warm = MathRenderer(tmp_path / "math")
    for latex, display in formulas[:-1]:
        warm.svg(latex, display)
    assert warm.rendered == 0  # every good formula came from the cache
    with pytest.raises(LatexError):
        warm.svg("\\frac{a}{b")  # a bad one is never stored


def test_prerender_lays_out_main_formulas_in_parallel_and_the_page_then_draws_nothing(tmp_path: Path) -> None:
    """A card's main formula is laid out (searched for line breaks: many drafts) by the pool, so
    the page that shows it finds its layouts and SVGs in the cache."""
    from eqcards.typeset import hero
    from eqcards.typeset.mathsvg import prerender

    long_sum = " + ".join(f"\\alpha_{{{i}}} \\log \\frac{{p_{{{i}}}}}{{q_{{{i}}}}}" for i in range(30))
    heroes = [f"L = {long_sum}", "y = x", "z = x^2"]  # enough to be worth a pool
    prerender([], tmp_path / "math", workers=2, heroes=heroes)
    warm = MathRenderer(tmp_path / "math")
    assert all(hero.laid_out(h, warm) for h in heroes)
    drawn = hero.hero_markup(heroes[0], warm)
    assert warm.rendered == 0 and "eqc-fit-narrow" in drawn  # the phone's layout is stacked
    warm._engine = counting = CountingEngine()
    hero.hero_markup(heroes[1], warm)
    assert counting.drawn == []


def test_a_renderer_draws_each_formula_once_while_a_layout_is_searched() -> None:
    renderer = MathRenderer(None)
    renderer._engine = counting = CountingEngine()
    for _ in range(3):
        renderer.draft("x + y")
    assert counting.drawn == ["x + y"]


class CountingEngine:
    """Stands in for MathJax and records what it was asked to draw."""

    def __init__(self) -> None:
        self.drawn: list[str] = []

    def render(self, latex: str, display: bool) -> str:
        self.drawn.append(latex)
        return '<svg width="1ex"/>'


def test_tex_outside_dollars_in_a_plain_text_field_is_reported_with_its_line(tmp_path: Path) -> None:
    path, card = write(tmp_path, summary="Uses \\sigma(x) bare.",
                       symbols=[{"symbol": "x", "meaning": "fine: $\\sigma(x)$"},
                                {"symbol": "y", "meaning": "from \\mathcal{D}"}])
    errors = check_latex([card], MathRenderer(tmp_path / "math"))
    text = path.read_text().splitlines()
    summary_line = next(i for i, t in enumerate(text, 1) if t.startswith("summary:"))
    meaning_line = next(i for i, t in enumerate(text, 1) if "from \\mathcal{D}" in t)
    fix = "put the formula between dollar signs"
    assert [(e.line, e.message) for e in errors] == [
        (summary_line, f"summary has LaTeX outside $...$ (`\\sigma`): {fix}"),
        (meaning_line, f"symbol meaning has LaTeX outside $...$ (`\\mathcal`): {fix}"),
    ]


def test_math_in_a_symbol_meaning_is_checked_like_any_formula(tmp_path: Path) -> None:
    _, card = write(tmp_path, symbols=[{"symbol": "x", "meaning": "broken $\\frac{a}{b$ here"}])
    errors = check_latex([card], MathRenderer(tmp_path / "math"))
    assert len(errors) == 1 and "LaTeX in symbols (meaning) does not typeset" in errors[0].message
