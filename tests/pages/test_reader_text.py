"""Reader-facing text (issue 26): one renderer for every card text (eqcards.pages.markup), with no TeX
where a page shows text; the primary source's BibTeX; the site's address, never a loopback one."""

from __future__ import annotations

import re

import pytest
from conftest import ROOT

from eqcards.cards.model import Source
from eqcards.core.config import SiteURLError, is_loopback, public_site_url
from eqcards.pages import markup
from eqcards.pages.citation import source_bibtex, source_short_name

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
    from eqcards.cards.load import load_cards, load_topics
    from eqcards.cards.seeds import read_index

    cards = load_cards(ROOT / "docs" / "cards", load_topics(ROOT / "docs" / "topics.yml"),
                       read_index(ROOT / "seeds" / "entries.txt"), ROOT / "snippets")
    shown = {(c.id, field): markup.plain(getattr(c, field)) for c in cards for field in ("title", "summary")}
    assert len(shown) == 2 * len(cards) > 700
    assert [(key, text) for key, text in shown.items() if TEX.search(text)] == []
    # Titles are headings: no script marker is left in them at all.
    assert [text for (_, field), text in shown.items() if field == "title" and re.search(r"[_^]", text)] == []


# --- The primary source's BibTeX ----------------------------------------------------------------

@pytest.mark.parametrize(("source", "entry"), [
    (Source("Solomon Kullback, Richard A. Leibler", 1951, "On Information and Sufficiency",
            "The Annals of Mathematical Statistics 22(1), 79–86", doi="10.1214/aoms/1177729694"),
     "@article{kullback1951information,\n  author = {Solomon Kullback and Richard A. Leibler},\n"
     "  title = {{On Information and Sufficiency}},\n  journal = {The Annals of Mathematical Statistics},\n"
     "  volume = {22},\n  number = {1},\n  pages = {79--86},\n  year = {1951},\n"
     "  doi = {10.1214/aoms/1177729694}\n}"),
    (Source("John Schulman, Filip Wolski, et al.", 2017, "Proximal Policy Optimization Algorithms",
            "arXiv preprint", arxiv="1707.06347"),
     "@misc{schulman2017proximal,\n  author = {John Schulman and Filip Wolski and others},\n"
     "  title = {{Proximal Policy Optimization Algorithms}},\n"
     "  howpublished = {arXiv preprint arXiv:1707.06347},\n  year = {2017},\n"
     "  eprint = {1707.06347},\n  archivePrefix = {arXiv}\n}"),
    (Source("Omar Khattab, Matei Zaharia", 2020, "ColBERT: Efficient & Effective Passage Search",
            "Proceedings of the 43rd International ACM SIGIR Conference, 39–48", arxiv="2004.12832"),
     "@inproceedings{khattab2020colbert,\n  author = {Omar Khattab and Matei Zaharia},\n"
     "  title = {{ColBERT: Efficient \\& Effective Passage Search}},\n"
     "  booktitle = {Proceedings of the 43rd International ACM SIGIR Conference},\n  pages = {39--48},\n"
     "  year = {2020},\n  eprint = {2004.12832},\n  archivePrefix = {arXiv}\n}"),
    (Source("Richard S. Sutton, Andrew G. Barto", 2018, "Reinforcement Learning: An Introduction",
            "MIT Press", url="http://incompleteideas.net/book/the-book-2nd.html"),
     "@book{sutton2018reinforcement,\n  author = {Richard S. Sutton and Andrew G. Barto},\n"
     "  title = {{Reinforcement Learning: An Introduction}},\n  publisher = {MIT Press},\n  year = {2018},\n"
     "  url = {http://incompleteideas.net/book/the-book-2nd.html}\n}"),
    (Source("Leemon C. Baird III", 1993, "Advantage Updating",
            "Technical Report WL-TR-93-1146, Wright Laboratory", url="https://example.org/baird"),
     "@techreport{baird1993advantage,\n  author = {Baird, III, Leemon C.},\n"
     "  title = {{Advantage Updating}},\n"
     "  institution = {Wright Laboratory},\n  number = {WL-TR-93-1146},\n  year = {1993},\n"
     "  url = {https://example.org/baird}\n}"),
])
def test_primary_source_bibtex_is_an_entry_of_its_kind(source: Source, entry: str) -> None:
    assert source_bibtex(source) == entry


def test_primary_source_is_named_as_in_running_text() -> None:
    assert source_short_name(Source("C. E. Shannon", 1948, "t", "v")) == "Shannon (1948)"
    assert source_short_name(Source("Solomon Kullback, Richard A. Leibler", 1951, "t", "v")) == \
        "Kullback and Leibler (1951)"
    assert source_short_name(Source("Hugo Touvron, Louis Martin, et al.", 2023, "t", "v")) == \
        "Touvron et al. (2023)"


# --- The site's address -------------------------------------------------------------------------

@pytest.mark.parametrize("url", ["http://127.0.0.1:8000/", "http://127.1.2.3/", "http://localhost:8000/",
                                 "http://LOCALHOST/", "http://[::1]:8000/", "http://0.0.0.0:8000/"])
def test_a_loopback_site_url_cannot_be_published(url: str) -> None:
    assert is_loopback(url)
    assert public_site_url(url, publish=False) == url  # `make serve` previews at its own address
    with pytest.raises(SiteURLError, match=r"^SITE_URL is .* loopback address.*EQCARDS_PUBLISH=1.*SITE_URL="):
        public_site_url(url, publish=True)


def test_a_site_url_is_needed_to_publish_and_optional_otherwise() -> None:
    for missing in (None, "", "  "):
        assert public_site_url(missing, publish=False) is None
        with pytest.raises(SiteURLError, match=r"^SITE_URL is not set.*EQCARDS_PUBLISH=1.*SITE_URL=https://"):
            public_site_url(missing, publish=True)
    assert public_site_url("https://cards.example.org/eq", publish=True) == "https://cards.example.org/eq/"
    assert not is_loopback("https://127.0.0.1.example.org/") and not is_loopback("https://localhost.example/")
