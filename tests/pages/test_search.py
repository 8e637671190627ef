"""Formula search without a browser: the index we write, and the engine run in QuickJS."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import quickjs
from conftest import ROOT
from search_cases import (
    ALL_WORDS_DEPTH,
    ALL_WORDS_FIRST,
    FIRST_CASES,
    NO_RESULTS,
    SEARCH_CASES,
    SHORT_LISTS,
    all_words_first,
)

from eqcards.cards.load import load_topics
from eqcards.pages.search import SEARCH_FIELDS, build_documents, rewrite_index

ENGINE = ROOT / "docs" / "javascripts" / "search-engine.js"


class Engine:
    """search-engine.js in QuickJS, the same file the site's search worker loads."""

    def __init__(self) -> None:
        self.context = quickjs.Context()
        self.context.eval(ENGINE.read_text(encoding="utf-8"))

    def call(self, expression: str, *args: Any) -> Any:
        arguments = ", ".join(json.dumps(a, ensure_ascii=False) for a in args)
        return json.loads(self.context.eval(f"JSON.stringify(({expression})({arguments}))"))

    def load(self, config: dict[str, Any], docs: list[dict[str, Any]]) -> None:
        self.call("(c, d) => { globalThis.INDEX = EqSearch.build({config: c, docs: d}); return 0; }",
                  config, docs)

    def ranked(self, query: str) -> list[str]:
        return self.call("(q) => EqSearch.search(INDEX, q).map(r => r.location)", query)

    def matched_all_words(self, query: str) -> list[tuple[str, bool]]:
        """Each result, best first, with whether it matched every word of the query."""
        pairs = self.call("(q) => EqSearch.search(INDEX, q).map(r => [r.location, "
                          "Object.values(r.terms).every(Boolean)])", query)
        return [(location, full) for location, full in pairs]

    def tokens(self, text: str) -> list[str]:
        return self.call("EqSearch.tokenize", text)


@pytest.fixture(scope="module")
def site_engine(built_site: Path) -> Engine:
    index = json.loads((built_site / "search" / "search_index.json").read_text())
    docs = json.loads((built_site / "search" / index["config"]["documents"]).read_text())
    engine = Engine()
    engine.load(index["config"], docs)
    return engine


@pytest.mark.parametrize(("query", "card_id"), SEARCH_CASES, ids=[q for q, _ in SEARCH_CASES])
def test_query_finds_its_card_in_the_top_three(site_engine: Engine, query: str, card_id: str) -> None:
    ranked = site_engine.ranked(query)
    assert f"cards/{card_id}/" in ranked[:3], (query, ranked[:5])


@pytest.mark.parametrize(("query", "card_id"), FIRST_CASES, ids=[q for q, _ in FIRST_CASES])
def test_a_rare_word_outweighs_a_common_one(site_engine: Engine, query: str, card_id: str) -> None:
    ranked = site_engine.ranked(query)
    assert ranked[0] == f"cards/{card_id}/", (query, ranked[:3])


@pytest.mark.parametrize("query", ALL_WORDS_FIRST)
def test_cards_matching_every_word_rank_above_cards_matching_some(site_engine: Engine, query: str) -> None:
    results = site_engine.matched_all_words(query)
    assert len(results) > ALL_WORDS_DEPTH and any(not full for _, full in results), results
    assert all_words_first(results), (query, results[:ALL_WORDS_DEPTH])


def test_the_all_words_rule_judges_cards_and_can_fail() -> None:
    cards = [(f"cards/c{i}/", True) for i in range(ALL_WORDS_DEPTH)]
    assert all_words_first([("examples/long-story/", True), *cards, ("cards/part/", False)])
    assert all_words_first([*cards[:2], ("examples/long-story/", False), *cards[2:]])
    assert not all_words_first([*cards[:2], ("cards/part/", False), *cards[2:]])
    assert not all_words_first(cards[:-1])  # too few cards to judge


@pytest.mark.parametrize(("query", "most"), SHORT_LISTS, ids=[q for q, _ in SHORT_LISTS])
def test_a_query_naming_one_card_gives_a_short_list(site_engine: Engine, query: str, most: int) -> None:
    ranked = site_engine.ranked(query)
    assert ranked and len(ranked) <= most, (query, len(ranked), ranked[:8])


@pytest.mark.parametrize("query", NO_RESULTS)
def test_a_query_that_means_nothing_finds_nothing(site_engine: Engine, query: str) -> None:
    assert site_engine.ranked(query) == []


def test_the_table_covers_every_way_of_asking() -> None:
    assert len(SEARCH_CASES) >= 40
    assert len({q for q, _ in SEARCH_CASES}) == len(SEARCH_CASES)
    card_ids = {p.stem for p in (ROOT / "docs" / "cards").glob("*.md")}
    assert {c for _, c in SEARCH_CASES + FIRST_CASES} <= card_ids
    # Each ranking table holds it to a rule with more than one query.
    assert len(FIRST_CASES) >= 3 and len(ALL_WORDS_FIRST) >= 3 and len(SHORT_LISTS) >= 3
    assert all(len(q.split()) >= 2 for q in ALL_WORDS_FIRST)


@pytest.mark.parametrize(("typed", "latex"), [
    ("β", "\\beta"), ("beta", "\\beta"), ("d_k", "d_{k}"), ("p_θ", "p_\\theta"),
    ("QK^T", "QK^\\top"), ("QKᵀ", "QK^{\\top}"), ("KL", "\\mathrm{KL}"),
    ("softmax", "\\operatorname{softmax}"),
    ("sqrt(d_k)", "\\sqrt{d_k}"), ("Kullback-Leibler", "Kullback–Leibler"), ("ᾱ_t", "\\bar\\alpha_t"),
])
def test_a_symbol_typed_or_spelled_tokenizes_like_its_latex(typed: str, latex: str) -> None:
    engine = Engine()
    assert engine.tokens(typed) == engine.tokens(latex)


def test_symbols_stay_whole_and_also_yield_their_parts() -> None:
    assert Engine().tokens("\\frac{QK^\\top}{\\sqrt{d_k}}") == [
        "frac", "qk^t", "qkt", "qk", "t", "sqrt", "d_k", "dk", "d", "k"]


def test_edit_distance_counts_a_swap_as_one_typo() -> None:
    engine = Engine()
    assert engine.call("EqSearch.editDistance", "entorpy", "entropy", 2) == 1
    assert engine.call("EqSearch.editDistance", "perplexaty", "perplexity", 2) == 1
    assert engine.call("EqSearch.editDistance", "entropy", "softmax", 2) == 3  # past the limit


def mini_docs() -> list[dict[str, Any]]:
    """Two cards: one whose alias is the query, one that only mentions it in prose, often."""
    return [
        {"location": "cards/a/", "title": "Alpha", "teaser": "",
         "fields": {"name": "Alpha", "alias": ["RRF"], "text": "fusion of ranked lists"}},
        {"location": "cards/b/", "title": "Beta", "teaser": "",
         "fields": {"name": "Beta", "text": "RRF RRF RRF compared with RRF and fusion"}},
        {"location": "cards/c/", "title": "Gamma <script>", "teaser": "x < y",
         "fields": {"name": "Gamma", "text": "unrelated words"}},
    ]


def test_an_alias_outweighs_any_number_of_mentions_in_prose() -> None:
    engine = Engine()
    engine.load({"fields": SEARCH_FIELDS}, mini_docs())
    assert engine.ranked("RRF") == ["cards/a/", "cards/b/"]


def doc(slug: str, name: str, **fields: Any) -> dict[str, Any]:
    return {"location": f"cards/{slug}/", "title": name, "fields": {"name": name, **fields}}


def fillers(count: int) -> list[dict[str, Any]]:
    return [doc(f"filler-{i}", f"Filler {i}", text="unrelated prose") for i in range(count)]


def test_a_rare_word_outweighs_a_common_one_mentioned_more_often() -> None:
    # Each card matches one word of the query; "loss" is on five of the six cards and
    # "wasserstein" on one, so the card with the rare word wins though "loss" is said twice.
    engine = Engine()
    engine.load({"fields": SEARCH_FIELDS}, [
        doc("common", "Alpha", text="loss and more loss"),
        doc("rare", "Beta", text="wasserstein"),
        *(doc(f"loss-{i}", f"Gamma {i}", text="loss") for i in range(4)),
    ])
    assert engine.ranked("wasserstein loss")[:2] == ["cards/rare/", "cards/common/"]


def test_all_words_in_prose_beat_one_word_in_a_heavier_field() -> None:
    # "fusion" as a tag (weight 3) outweighs "fusion" and "ranked" in prose (weight 1 each);
    # matching half the query costs the tagged card more than that.
    engine = Engine()
    engine.load({"fields": SEARCH_FIELDS}, [
        doc("both", "Alpha", text="fusion of ranked lists"),
        doc("one", "Beta", tags=["fusion"]),
        *fillers(3),
    ])
    assert engine.ranked("fusion ranked") == ["cards/both/", "cards/one/"]
    assert engine.ranked("fusion") == ["cards/one/", "cards/both/"]


def test_a_near_miss_far_below_the_answer_is_not_listed() -> None:
    # "perplexing" is two typos from "perplexity": a match, but worth under 2% of the card that
    # the query names, so it is cut; with no such card above it, it is listed.
    engine = Engine()
    engine.load({"fields": SEARCH_FIELDS}, [
        doc("perplexity", "Perplexity", alias=["PPL"]),
        doc("other", "Other", text="a perplexing result"),
        *fillers(3),
    ])
    assert engine.ranked("perplexity") == ["cards/perplexity/"]
    engine.load({"fields": SEARCH_FIELDS}, [doc("other", "Other", text="a perplexing result"), *fillers(3)])
    assert engine.ranked("perplexity") == ["cards/other/"]


def test_nothing_matches_nothing() -> None:
    engine = Engine()
    engine.load({"fields": SEARCH_FIELDS}, mini_docs())
    assert engine.ranked("fusion ranked")[0] == "cards/a/"
    assert engine.ranked("zzzz qqqq") == []
    assert engine.ranked("   ") == []


def test_result_text_is_escaped_for_the_theme_which_inserts_it_as_html() -> None:
    engine = Engine()
    assert engine.call("EqSearch.escapeHtml", 'Gamma <script>"&') == "Gamma &lt;script&gt;&quot;&amp;"
    worker = (ROOT / "docs" / "javascripts" / "search-worker.js").read_text()
    assert "EqSearch.escapeHtml(result.title)" in worker and "EqSearch.escapeHtml(result.teaser)" in worker


def test_documents_carry_card_fields_and_repeating_pages_only_their_title() -> None:
    from eqcards.cards.load import parse_card

    topics = {t.id: t for t in load_topics(ROOT / "docs" / "topics.yml")}
    card = parse_card(ROOT / "docs" / "cards" / "kl-divergence.md")
    entries = [
        {"location": "cards/kl-divergence/", "title": "Kullback&ndash;Leibler divergence", "text": ""},
        {"location": "cards/kl-divergence/#pitfalls", "title": "Pitfalls",
         "text": "<p>Smooth &amp; clip</p>"},
        {"location": "cheatsheet/", "title": "Cheatsheet", "text": "<p>every formula again</p>"},
        {"location": "numbers/", "title": "Numbers", "text": "<p>tokens per parameter</p>"},
    ]
    docs = {d["location"]: d for d in build_documents(entries, {card.url: card}, topics)}
    kl = docs["cards/kl-divergence/"]
    assert kl["title"] == card.title and kl["teaser"] == card.summary
    assert "relative entropy" in kl["fields"]["alias"]
    assert kl["fields"]["tex"][0] == card.equation
    assert kl["fields"]["text"] == "Smooth & clip"
    assert docs["cheatsheet/"]["fields"]["text"] == ""
    assert docs["numbers/"]["fields"]["text"] == "tokens per parameter"


def test_the_theme_index_keeps_only_settings_and_the_documents_load_on_demand(tmp_path: Path) -> None:
    index = tmp_path / "search_index.json"
    index.write_text(json.dumps({"config": {"lang": ["en"]}, "docs": [
        {"location": "", "title": "Home", "text": "<p>hello</p>"}]}))
    rewrite_index(index, [], {})
    written = json.loads(index.read_text())
    assert written == {"config": {"fields": SEARCH_FIELDS, "documents": "documents.json"}, "docs": []}
    assert json.loads((tmp_path / "documents.json").read_text())[0]["fields"]["text"] == "hello"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["documents.json", "search_index.json"]


GREEK = [("β", "beta"), ("θ", "theta"), ("σ", "sigma"), ("ε", "epsilon")]


@pytest.mark.parametrize(("letter", "name"), GREEK)
def test_a_greek_letter_and_its_name_find_the_same_cards(site_engine: Engine, letter: str, name: str) -> None:
    ranked = site_engine.ranked(letter)
    assert ranked and ranked == site_engine.ranked(name) == site_engine.ranked(f"\\{name}")


def test_words_that_name_object_properties_are_ordinary_words() -> None:
    engine = Engine()
    engine.load({"fields": SEARCH_FIELDS}, [
        {"location": "cards/js/", "title": "JS",
         "fields": {"name": "JS", "text": "constructor toString __proto__"}},
        {"location": "cards/other/", "title": "Other", "fields": {"name": "Other", "text": "hasOwnProperty"}},
    ])
    assert engine.ranked("constructor") == ["cards/js/"]
    assert engine.ranked("proto") == ["cards/js/"]
    assert engine.ranked("hasownproperty valueof") == ["cards/other/"]


BARE_SYMBOLS = {"β": "\\beta", "η": "\\eta", "τ": "\\tau", "σ": "\\sigma", "μ": "\\mu", "λ": "\\lambda",
                "ε": "\\epsilon", "γ": "\\gamma", "d_k": "d_k", "x_0": "x_0"}


@pytest.mark.parametrize("typed", BARE_SYMBOLS)
def test_a_bare_symbol_finds_a_card_that_defines_it_first(site_engine: Engine, typed: str) -> None:
    from eqcards.cards.load import parse_card

    top = site_engine.ranked(typed)[0]
    assert top.startswith("cards/"), top
    card = parse_card(ROOT / "docs" / "cards" / f"{top.split('/')[1]}.md")
    # Search ignores case, as people type it: σ finds a card's Σ as well.
    spellings = {s.symbol.replace(" ", "").replace("\\varepsilon", "\\epsilon").lower() for s in card.symbols}
    assert BARE_SYMBOLS[typed] in spellings, (typed, top, sorted(spellings))
