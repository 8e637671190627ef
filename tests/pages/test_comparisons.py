"""Comparison pages: docs/comparisons.yml is checked against the cards (every cell a piece of its
card's formula, every card existing), errors name the file and line, and the page marks what differs."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from conftest import card_markdown

from eqcards.cards.load import parse_card
from eqcards.core.errors import CardError, CardErrors
from eqcards.pages.comparisons import (
    compare_links,
    is_fragment,
    load_comparisons,
    render_compare_index,
    render_compare_line,
    render_comparison,
)
from eqcards.typeset.mathsvg import MathRenderer

FAMILY = r"""# two toy losses
- id: toy-losses
  title: 'Toy losses: a colon'
  intro: Two losses that differ in $\beta$.
  columns:
    - {id: scale, title: Scale}
    - {id: penalty, title: Penalty}
  rows:
    - card: base-loss
      note: The base.
      cells:
        scale: '\frac{1}{n} \sum_i'
        penalty: ''
    - card: other-loss
      note: Adds a penalty.
      differs: [penalty]
      cells:
        scale: '\frac{1}{n}\sum_i'
        penalty: '- \beta\,\Vert w \Vert^2'
"""


@pytest.fixture
def toy_cards(tmp_path: Path) -> dict:
    specs = {"base-loss": r"L = \frac{1}{n} \sum_i \ell_i",
             "other-loss": r"L = \frac{1}{n} \sum_i \ell_i - \beta \, \Vert w \Vert^2"}
    out = {}
    for card_id, equation in specs.items():
        path = tmp_path / f"{card_id}.md"
        title = card_id.replace("-", " ").title()
        path.write_text(card_markdown(id=card_id, title=title, equation=equation,
                                      cheatsheet={"label": title.split()[0]}), encoding="utf-8")
        out[card_id] = parse_card(path)
    return out


def load(tmp_path: Path, text: str, cards: dict, renderer: MathRenderer | None = None) -> list:
    path = tmp_path / "comparisons.yml"
    path.write_text(text, encoding="utf-8")
    return load_comparisons(path, cards, renderer)


def only_error(info: pytest.ExceptionInfo) -> CardError:
    errors = info.value.errors
    assert len(errors) == 1, errors
    return errors[0]


def test_fragment_ignores_blanks_and_spacing_but_not_tokens() -> None:
    formula = r"\beta \log \frac{\pi_\theta(y_w \mid x)}{\pi_{\text{ref}}(y_w)} - \beta\, x_{12}"
    assert is_fragment(r"\log\frac{\pi_\theta(y_w\mid x)}", formula)
    assert is_fragment(r"- \beta x_{12}", formula)  # '\,' dropped on one side only
    assert is_fragment(r"\beta\;\log", formula)
    assert not is_fragment(r"\lo", formula)  # half a control word
    assert not is_fragment(r"x_1", formula)  # x_1 is not x_{12}
    assert not is_fragment(r"\log \beta", formula)  # out of order


def test_a_valid_family_loads_and_renders(tmp_path: Path, toy_cards: dict) -> None:
    [family] = load(tmp_path, FAMILY, toy_cards)
    assert [r.card for r in family.rows] == ["base-loss", "other-loss"]
    assert family.rows[1].differs == {"penalty"} and family.rows[0].cells["penalty"] == ""
    page = render_comparison(family, toy_cards)
    assert yaml.safe_load(page.split("---\n")[1]) == {"title": "Toy losses: a colon", "hide": ["toc"]}
    base_row, base_note, other_row, other_note = page.split("<tr")[2:]  # after the head row
    assert "eqc-compare-base" in base_row and '<span class="eqc-base">base</span>' in base_row
    assert "eqc-compare-base" in base_note and "eqc-compare-base" not in other_row + other_note
    assert "[Base](../cards/base-loss.md)" in base_row  # by its short name, the cheatsheet label
    assert '<span class="eqc-absent">—</span>' in base_row and "eqc-differs" not in base_row
    # The changed cell carries the class and the visible word; the unchanged one neither.
    assert ('<td class="eqc-differs" data-term="Penalty" markdown="span"><span class="eqc-changed">changed'
            r"</span> $- \beta\,\Vert w \Vert^2$</td>") in other_row
    assert other_row.count("eqc-changed") == 1
    assert '<td colspan="3" markdown="span"><strong>Other:</strong> Adds a penalty.</td>' in other_note
    assert '<th scope="col">Card</th><th scope="col">Scale</th><th scope="col">Penalty</th></tr>' in page
    assert "[Toy losses: a colon](toy-losses.md): Base, Other" in render_compare_index([family], toy_cards)
    line = render_compare_line(compare_links("other-loss", [family]))
    assert line == "**Compare with:** [Toy losses: a colon](../compare/toy-losses.md)"
    assert render_compare_line(compare_links("no-such-card", [family])) == ""


def test_a_cell_that_is_not_a_piece_of_its_card_fails_at_its_line(tmp_path: Path, toy_cards: dict) -> None:
    with pytest.raises(CardErrors) as info:
        load(tmp_path, FAMILY.replace(r"- \beta\,\Vert w", r"+ \beta\,\Vert w"), toy_cards)
    error = only_error(info)
    assert error.path == tmp_path / "comparisons.yml" and error.line == 19
    assert "cell 'penalty' of other-loss is not a piece of that card's equation" in error.message


def test_an_unknown_card_fails_at_its_line(tmp_path: Path, toy_cards: dict) -> None:
    with pytest.raises(CardErrors) as info:
        load(tmp_path, FAMILY.replace("card: other-loss", "card: missing-loss"), toy_cards)
    error = only_error(info)
    assert error.line == 14 and "card 'missing-loss' does not exist" in error.message


@pytest.mark.parametrize("differs, message", [
    ("[penalty, nope]", "differs names unknown columns nope"),
    ("[scale]", "cell 'scale' of other-loss is marked as differing but is the same as the base row's"),
])
def test_differs_must_name_cells_that_differ(tmp_path: Path, toy_cards: dict, differs: str,
                                             message: str) -> None:
    with pytest.raises(CardErrors) as info:
        load(tmp_path, FAMILY.replace("differs: [penalty]", f"differs: {differs}"), toy_cards)
    error = only_error(info)
    assert error.line == 16 and message in error.message


def test_the_base_row_cannot_differ(tmp_path: Path, toy_cards: dict) -> None:
    with pytest.raises(CardErrors) as info:
        text = FAMILY.replace("note: The base.\n", "note: The base.\n      differs: [scale]\n")
        load(tmp_path, text, toy_cards)
    error = only_error(info)
    assert error.line == 11 and "the first row is the base" in error.message


def test_every_column_needs_a_cell(tmp_path: Path, toy_cards: dict) -> None:
    with pytest.raises(CardErrors) as info:
        load(tmp_path, FAMILY.replace("        penalty: ''\n", ""), toy_cards)
    error = only_error(info)
    assert error.line == 11 and "missing required key 'penalty'" in error.message


def test_a_cell_that_does_not_typeset_alone_fails_at_its_line(tmp_path: Path, toy_cards: dict) -> None:
    # '\frac{1}{n} \sum' is a piece of the formula, but '\frac{1' leaves a brace open.
    text = FAMILY.replace(r"scale: '\frac{1}{n}\sum_i'", r"scale: '\frac{1'")
    with pytest.raises(CardErrors) as info:
        load(tmp_path, text, toy_cards, MathRenderer(None))
    error = only_error(info)
    assert error.line == 18 and "cell 'scale' of other-loss does not typeset on its own" in error.message

