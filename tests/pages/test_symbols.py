"""The notation index: which symbol a notation is filed under, the groups' order, one entry per symbol."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from conftest import card_markdown

from eqcards.cards.load import parse_card
from eqcards.pages.symbols import OTHER, classify, collect, render_symbols


@pytest.mark.parametrize(("latex", "symbol", "group"), [
    ("x", "x", "X"), ("x_t", "x", "X"), (r"\hat{x}_{t-1}", "x", "X"), ("(X - \\nu)^+", "X", "X"),
    (r"\mathbf{x}", r"\mathbf{x}", "X"), (r"\mathcal{L}(\theta)", r"\mathcal{L}", "L"),
    (r"\operatorname{softmax}(z)", r"\mathrm{softmax}", "S"), (r"\mathrm{KL}", r"\mathrm{KL}", "K"),
    (r"\log p_\theta(x)", r"\log", "L"), (r"\ell_i", r"\ell", "L"),
    (r"\sigma^2", r"\sigma", "sigma"), (r"\Sigma", r"\Sigma", "sigma"),
    (r"\varepsilon", r"\varepsilon", "epsilon"),
    (r"\nabla_\theta J", r"\nabla", OTHER), (r"\mathbf{1}[x > 0]", r"\mathbf{1}", OTHER), ("*", "*", OTHER),
])
def test_a_notation_is_filed_under_its_first_letter_in_its_style(latex: str, symbol: str, group: str) -> None:
    placed = classify(latex)
    assert placed is not None and placed[:2] == (symbol, group)


@pytest.mark.parametrize("latex", ["0.5", "10000", "2 + 2", "32, 128", "6ND", r"400 / \ln 10"])
def test_numbers_and_formulas_of_constants_are_no_symbols(latex: str) -> None:
    assert classify(latex) is None


def test_each_symbol_once_with_its_forms_meanings_and_cards_in_index_order(tmp_path: Path) -> None:
    def defines(*pairs: str) -> list[dict[str, str]]:
        return [{"symbol": s, "meaning": m} for s, m in zip(pairs[::2], pairs[1::2], strict=True)]

    specs = {"one": defines(r"\beta", "KL weight", "x_t", "input at $t$", "0.5", "a constant"),
             "two": defines(r"\beta ", "KL weight", r"\alpha", "step size", "x", "input",
                            r"\omega", "frequency", r"\partial", "partial derivative", "A", "advantage")}
    cards = []
    for card_id, symbols in specs.items():
        path = tmp_path / f"{card_id}.md"
        path.write_text(card_markdown(id=card_id, title=card_id.title(), symbols=symbols))
        cards.append(parse_card(path))
    symbols = collect(cards)
    assert [s.latex for s in symbols] == ["A", "x", r"\alpha", r"\beta", r"\omega", r"\partial"]
    beta = symbols[3]
    assert [[c.id for c in users] for users in beta.forms[r"\beta"].values()] == [["one", "two"]]
    assert list(symbols[1].forms) == ["x", "x_t"]  # the symbol itself first, then its other forms
    page = render_symbols(cards)
    headings = re.findall(r'<h2 id="sym-([^"]+)">', page)
    assert headings == ["A", "X", "alpha", "beta", "omega", OTHER]
    assert re.findall(r'<a href="#sym-[^"]+"[^>]*>([^<]+)</a>', page) == ["A", "X", "α", "β", "ω", "Other"]
    assert "a constant" not in page and "0.5" not in page
    assert "<dd><b>xₜ</b> input at t — " in page  # a form in Unicode text, its meaning's math too
    assert "$" not in page.split("---", 2)[2]
