"""Render a card page's Markdown: metadata-derived parts around the card's own prose."""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path
from types import MappingProxyType
from urllib.parse import quote, urlencode

from ..cards.calculator import Preset
from ..cards.model import Card, Source, Topic
from ..mutants.mutation_ledger import MeasuredScore
from ..snippets.jobs import SnippetResult
from . import markup
from .calculator_html import render_calculator

# The repository's issue form for card problems (.github/ISSUE_TEMPLATE/); the report link fills in
# its field `card`.
ISSUE_FORM = "card-problem.yml"


def report_link(card: Card, repo_url: str) -> str:
    """A link that opens the repository's card-problem form with this card already named."""
    query = urlencode({"template": ISSUE_FORM, "card": card.id, "title": f"Card {card.id}: "},
                      quote_via=quote)
    return f"[Report a problem with this card]({repo_url.rstrip('/')}/issues/new?{query})"


def figure_uri(card: Card, index: int) -> str:
    """Where figure `index` (1-based) of a card's snippet lives, relative to docs/."""
    return f"cards/{card.id}/figure-{index}.svg"


def render_source(source: Source) -> str:
    parts = [f"{markup.prose_with_math(source.authors)} ({source.year}). "
             f"*{markup.prose_with_math(source.title)}*. {markup.prose_with_math(source.venue)}."]
    if source.locator:
        parts.append(f" {markup.prose_with_math(source.locator)}.")
    if source.doi:
        parts.append(f" [doi:{markup.text(source.doi)}]({source.link})")
    elif source.arxiv:
        parts.append(f" [arXiv:{markup.text(source.arxiv)}]({source.link})")
    else:
        parts.append(f" <{source.url}>")
    return "".join(parts)


def render_verification(card: Card, result: SnippetResult | None, snippet_source: str,
                        repo_url: str | None = None, mutation: MeasuredScore | None = None) -> str:
    # Snippet output and source would swamp the search index; the section stays out of it.
    lines = ["## Verification { data-search-exclude }", ""]
    if result is None:
        lines += ['!!! warning "Not run"', "    Snippet execution was switched off for this build.", ""]
    elif result.ok:
        n = len(result.checks)
        lines += [f'!!! success "Verified: {n} check{"s" if n != 1 else ""} passed"',
                  f"    The snippet `snippets/{card.snippet}` ran at build time and compared the "
                  "formula with independent references.", ""]
    else:
        lines += ['!!! failure "Verification failed"', f"    {markup.text(result.error or '')}", ""]
    lines += render_mutation_score(card, mutation)
    if result is not None and result.stdout.strip():
        lines += ["```text", result.stdout.rstrip("\n"), "```", ""]
    for i, _ in enumerate(result.figures if result else [], start=1):
        uri = figure_uri(card, i)
        lines += [f'![Figure {i} drawn by the {markup.text(card.id)} snippet]'
                  f"({Path(uri).relative_to('cards')}){{ .eqc-figure }}", ""]
    links = [f'[Download as a Jupyter notebook]({card.id}/{card.id}.ipynb){{ download="{card.id}.ipynb" }}']
    if repo_url:
        links.append(f"[Snippet in the repository]({repo_url.rstrip('/')}/blob/main/snippets/{card.snippet})")
    lines += [" · ".join(links), ""]
    fence = "````" if "```" in snippet_source else "```"
    lines += [f'??? example "Snippet source: snippets/{card.snippet}"', "",
              f"    {fence}python", *[f"    {line}" for line in snippet_source.splitlines()],
              f"    {fence}", ""]
    return "\n".join(lines)


def _prose(text: str) -> str:
    """Plain text in Markdown: HTML escaped, and no stray emphasis or links from * _ [ ]."""
    return re.sub(r"([\\*_\[\]`])", r"\\\1", markup.text(text))


def render_mutation_score(card: Card, score: MeasuredScore | None) -> list[str]:
    """How many deliberate errors in the formula the checks caught (from the mutation ledger),
    with every one tried and, beside the count, why a formula with few of them admits no more (the
    snippet's `# few mutants:` reason); or that it was not measured for this version of the snippet."""
    if score is None or score.score is None:
        return ['!!! note "Mutation score: not measured for this version of the snippet"',
                "    How strong the checks are is measured by breaking the formula on purpose, one "
                "error at a time (`make mutants`). No score is recorded for the snippet as it is "
                "now, so none is shown.", ""]
    caught = (f"{score.killed} of {score.tried} deliberate error{'s' if score.tried != 1 else ''} "
              f"in the formula {'were' if score.killed != 1 else 'was'} caught by the checks")
    if score.few:
        caught += f" — few by nature: {_prose(score.few)}"
    lines = [f'??? abstract "{caught[0].upper()}{caught[1:]}"',
             f"    Each deliberate error (a mutant) is a copy of `snippets/{card.snippet}` with one "
             "change in the code that computes the formula: an operator, a constant, a function, an "
             "index, a slice, an axis or the order of two arguments. Each ran as the build runs the "
             "snippet, and counts as caught when a check fails, the snippet stops with an error or it "
             "runs past its time limit"
             + (f" ({score.timed_out} did)" if score.timed_out else "") + ".", ""]
    groups = [("survived", "Not caught"), ("equivalent", "Declared equivalent (cannot change the "
              "result; not counted)"), ("killed", "Caught"), ("timeout", "Caught: ran past the time limit")]
    for status, title in groups:
        items = score.of(status)
        if not items:
            continue
        lines += [f"    **{title}: {len(items)}**", ""]
        for m in items:
            where = markup.code_span(f"{score.snippet or 'snippets/' + card.snippet}:{m.get('line')}")
            note = ""
            if m.get("reason"):
                note = f", because {_prose(str(m['reason']))}"
            elif m.get("by") and status == "killed":
                note = f", by {markup.code_span(str(m['by']))}"
            lines.append(f"    - {where} {markup.code_span(str(m.get('diff', '')))}{note}")
        lines.append("")
    return lines


def render_card(card: Card, topic: Topic, cards_by_id: dict[str, Card],
                result: SnippetResult | None, snippet_source: str,
                backlinks: list[str], cite_box: str = "",
                neighbours: tuple[Card | None, Card | None] = (None, None),
                repo_url: str | None = None, mutation: MeasuredScore | None = None,
                examples: list[tuple[str, str]] = (), history: list[str] = (),
                presets: Mapping[str, Preset] = MappingProxyType({}), compare: str = "",
                in_code: list[str] = ()) -> str:
    """The whole page, identical in structure for every card. `examples`: (title, slug) of the
    worked examples that use the card; `history`: its History section (eqcards.pages.changelog);
    `compare`: the line linking its comparison pages (eqcards.pages.comparisons), if any; `in_code`:
    its In code section (eqcards.pages.in_code)."""
    # The lead summary goes through the same renderer as every other card text (md_in_html: the
    # paragraph's Markdown, and so its $math$, is rendered); a bare <p> would show the TeX.
    out = [f"# {markup.prose_with_math(card.title)}", "",
           f'<p class="eqc-summary" markdown>{markup.prose_with_math(card.summary)}</p>', "",
           '<div class="eqc-equation" id="equation" markdown>', "",
           markup.display_math(card.equation), "", formula_tools(cite=bool(cite_box)), "", "</div>", ""]
    meta = []  # the topic is in the breadcrumb above the title (eqcards/pages/breadcrumbs.py)
    if card.aliases:
        meta.append("**Also known as:** " + ", ".join(f"`{a}`" if "`" not in a else markup.text(a)
                                                      for a in card.aliases))
    # Equation, summary and symbols first; names and topic after them, so that on a phone the
    # formula is what the first screen shows.
    out += ["## Symbols", "", "| Symbol | Meaning |", "|---|---|"]
    out += [f"| {markup.inline_math(s.symbol)} | {markup.cell(s.meaning)} |" for s in card.symbols]
    if meta:
        out += ["", '<div class="eqc-meta" markdown>', "", " · ".join(meta), "", "</div>", ""]
    out += ["", *render_calculator(card, presets)]
    if compare:
        out += ["", f'<p class="eqc-meta eqc-compare-with" markdown>{compare}</p>', ""]
    out += ["", card.body.strip(), "", *in_code,
            render_verification(card, result, snippet_source, repo_url, mutation)]
    out += ["## Sources", ""]
    out += [f"{i}. {render_source(s)}" for i, s in enumerate(card.sources, start=1)]
    if repo_url:  # with no repository to report to, no link at all rather than a dead one
        out += ["", report_link(card, repo_url)]
    if history:
        out += ["", *history]
    if cite_box:
        out += ["", "## Cite this card { data-search-exclude }", "", cite_box]
    if examples:
        out += ["", "## In worked examples { data-search-exclude }", ""]
        out += [f"- [{markup.text(title)}](../examples/{slug}.ipynb)" for title, slug in examples]
    related = list(dict.fromkeys([*card.related, *backlinks]))
    if related:
        out += ["", "## Related cards { data-search-exclude }", ""]
        out += [f"- [{markup.prose_with_math(cards_by_id[r].title)}]({r}.md): "
                f"{markup.prose_with_math(cards_by_id[r].summary)}" for r in related]
    out += render_common_mistakes(card)
    out += ["", render_topic_trail(topic, *neighbours)]
    return "\n".join(out) + "\n"


def render_common_mistakes(card: Card) -> list[str]:
    """What formula sheets, write-ups and library docs commonly get wrong about this formula, and
    what is right instead. The reader never saw the documents the site was built from, so a
    correction of one is told as a mistake, without naming the document (the About page does)."""
    notes = [markup.prose_with_math(e.note) for e in card.errata]
    for mistake in card.mistakes:
        where = f" *(Found in {markup.prose_with_math(mistake.where)}.)*" if mistake.where else ""
        notes.append(markup.prose_with_math(mistake.note) + where)
    if not notes:
        return []
    return ["", '!!! warning "Common mistakes"', "", *(f"    - {note}" for note in notes)]


def formula_tools(cite: bool) -> str:
    """The main formula's own tools: copy its TeX (a button the page's script shows, since only a
    script can copy), a permalink to it (#eq-1, see eqcards/typeset/hero.py) and a link to the
    card's citation box, which the script opens (docs/javascripts/formula-tools.js)."""
    tools = ['<button type="button" class="eqc-tool" data-eqc-copy hidden>Copy TeX</button>',
             '<a class="eqc-tool" href="#eq-1" data-eqc-permalink>Permalink</a>']
    if cite:
        tools.append('<a class="eqc-tool" href="#cite-this-card" data-eqc-cite>Cite</a>')
    return ('<div class="eqc-formula-tools" role="group" aria-label="Formula tools" data-search-exclude>'
            + "".join(tools)
            + '<span class="eqc-tool-status" role="status" aria-live="polite"></span></div>')


def render_topic_trail(topic: Topic, previous: Card | None, following: Card | None) -> str:
    """Previous and next card in the topic's reading order, and the topic itself. Each link says
    where it leads ("Previous", "Next", "Topic") above its title; a title too long for its column
    wraps between words (navigation.css), and its full text is also the link's tooltip."""
    def link(card: Card, css: str, rel: str, label: str) -> str:
        tooltip = markup.text(markup.plain(card.title))
        return (f'<a class="{css}" rel="{rel}" href="../{card.id}/" title="{tooltip}">'
                f'<span class="eqc-trail-label">{label}</span>'
                f'<span class="eqc-trail-title">{markup.scripts_html(card.title)}</span></a>')
    parts = [link(previous, "eqc-prev", "prev", "&larr; Previous")] if previous else []
    parts.append(f'<a class="eqc-up" href="../../topics/{topic.id}/">'
                 f'<span class="eqc-trail-label">Topic</span>'
                 f'<span class="eqc-trail-title">{markup.text(topic.title)}</span></a>')
    if following:
        parts.append(link(following, "eqc-next", "next", "Next &rarr;"))
    return '<nav class="eqc-topic-trail" aria-label="Cards in this topic">' + " ".join(parts) + "</nav>"
