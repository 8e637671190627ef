"""Reader-grade pages (issue 26): every reader-facing text goes through one renderer (eqcards.markup),
so no page shows TeX where a reader sees text; a site never holds a loopback address, and its
citations link to where the card is read; each card offers its primary source's BibTeX."""

from __future__ import annotations

import json
import re
from html.parser import HTMLParser
from pathlib import Path

import pytest
from conftest import ROOT

from eqcards import markup

# TeX where text is shown: a $ delimiter, a command (\alpha), a braced script, a \( \) \[ \] delimiter.
TEX = re.compile(r"\$|\\[A-Za-z]+|[\^_]\{|\\[()\[\]]")


# --- The renderer -------------------------------------------------------------------------------

@pytest.mark.parametrize(("text", "shown"), [
    (r"sampling it with step size $\Delta$", "sampling it with step size Δ"),
    (r"over the top-$k$ passages", "over the top-k passages"),
    (r"the reward $r - \lambda c$ of a step", "the reward r − λc of a step"),
    ("Advantage function A^π", "Advantage function Aπ"),
    ("Variance of the attention score (√d_k)", "Variance of the attention score (√dₖ)"),
    ("Closed-form forward marginal q(x_t | x_0)", "Closed-form forward marginal q(xₜ | x₀)"),
    (r"the range $[x_{\min}, x_{\max}]$", "the range [xₘᵢₙ, xₘₐₓ]"),
    (r"scaled by $1/(1-p)$, $\frac{1}{\sqrt{d_k}}$", "scaled by 1/(1 − p), 1/√dₖ"),
    (r"$\mathbb{E}[X]$ and $\lVert x \rVert_2$ and $\hat{x}$", "𝔼[X] and ‖x‖₂ and x̂"),
    (r"$\operatorname{KL}(p \,\|\, q)$ in $\{1, \dots, K\}$", "KL(p ‖ q) in {1, …, K}"),
    ("q(x_{t-1} | x_t, x_0) and 10^{-2}", "q(xₜ₋₁ | xₜ, x₀) and 10⁻²"),
    ("e^{-u} with π_θ and σ^(1/ρ)", "e⁻ᵘ with π_θ and σ^(1/ρ)"),
    ("a weight_decay of 0.1 in `chunk_size`", "a weight_decay of 0.1 in chunk_size"),
])
def test_plain_text_writes_math_and_scripts_as_unicode(text: str, shown: str) -> None:
    assert markup.plain(text) == shown
    assert not TEX.search(markup.plain(text))


def test_markup_writes_scripts_as_sub_and_sup_and_leaves_math_and_code_to_the_build() -> None:
    assert markup.prose_with_math("Advantage function A^π") == "Advantage function A<sup>π</sup>"
    assert markup.prose_with_math("q(x_{t-1} | x_t) over $k$ <b>") == \
        "q(x<sub>t−1</sub> | x<sub>t</sub>) over $k$ &lt;b&gt;"
    assert markup.prose_with_math("e^(m_old − m_new)") == "e<sup>m<sub>old</sub> − m<sub>new</sub></sup>"
    # Not scripts: snake_case words, a marker after a space, code (which Markdown escapes itself).
    assert markup.prose_with_math("weight_decay, in_channels, a _b, `x_t*`") == \
        "weight_decay, in_channels, a _b, `x_t*`"
    assert markup.cell("meaning of $|A|$ at x_t") == r"meaning of $\vert A\vert$ at x<sub>t</sub>"


def test_every_card_text_written_as_plain_text_holds_no_tex() -> None:
    """What <title>, the meta tags and search results show of every real card."""
    from eqcards.cards import load_cards, load_topics
    from eqcards.seeds import read_index

    cards = load_cards(ROOT / "docs" / "cards", load_topics(ROOT / "docs" / "topics.yml"),
                       read_index(ROOT / "seeds" / "entries.txt"), ROOT / "snippets")
    shown = {(c.id, field): markup.plain(getattr(c, field)) for c in cards for field in ("title", "summary")}
    assert len(shown) == 2 * len(cards) > 700
    assert [(key, text) for key, text in shown.items() if TEX.search(text)] == []
    # Titles are headings: no script marker is left in them at all.
    assert [text for (_, field), text in shown.items() if field == "title" and re.search(r"[_^]", text)] == []


# --- The built site -----------------------------------------------------------------------------

class HeadText(HTMLParser):
    """A page's <title> and the text of its meta tags (description, og:*, twitter:*, citation_*)."""

    def __init__(self) -> None:
        super().__init__()
        self.texts: list[tuple[str, str]] = []
        self._in_title = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = dict(attrs)
        name = values.get("name") or values.get("property") or ""
        if tag == "title":
            self._in_title = True
        elif tag == "meta" and re.match(r"description$|og:|twitter:|citation_", name):
            self.texts.append((name, values.get("content") or ""))

    def handle_endtag(self, tag: str) -> None:
        self._in_title = self._in_title and tag != "title"

    def handle_data(self, data: str) -> None:
        if self._in_title:
            self.texts.append(("title", data))


TITLES = ("title", "citation_title")  # headings: no script marker is left in them either


def test_titles_meta_tags_and_search_results_show_no_tex(built_site: Path) -> None:
    """The places where no formula can be typeset: each page's <title> and meta tags, and the
    titles and teasers the search worker shows (search/documents.json)."""
    pages = sorted(built_site.rglob("*.html"))
    found, with_tex = 0, []
    for page in pages:
        head = HeadText()
        head.feed(page.read_text(encoding="utf-8"))
        found += len(head.texts)
        with_tex += [(str(page.relative_to(built_site)), name, text) for name, text in head.texts
                     if TEX.search(text) or (name in TITLES and re.search(r"[_^]", text))]
    card = (built_site / "cards" / "advantage-weighted-regression" / "index.html").read_text(encoding="utf-8")
    assert 'name="description" content="AWR fits the policy by behaviour cloning' in card
    assert "<title>Advantage function Aπ - Equation Cards</title>" in \
        (built_site / "cards" / "advantage-function" / "index.html").read_text(encoding="utf-8")
    assert found > 2 * len(pages)
    assert with_tex == [], f"{len(with_tex)} show TeX: {with_tex[:10]}"
    documents = json.loads((built_site / "search" / "documents.json").read_text(encoding="utf-8"))
    shown = [(d["location"], key, d[key]) for d in documents for key in ("title", "teaser")]
    assert len(documents) > 380 and sum(1 for *_, text in shown if text) > 700
    assert [s for s in shown if TEX.search(s[2])] == []
