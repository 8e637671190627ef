"""How to cite a card: BibTeX, a plain-text reference, Highwire meta tags, and old-id redirects."""

from __future__ import annotations

import html
import json
import re
import unicodedata
from dataclasses import dataclass

from ..cards.model import Card, Source
from ..cards.releases import CardRecord
from . import markup

AUTHOR = "Equation Cards contributors"


@dataclass(frozen=True)
class Edition:
    """What identifies this build of the site in a citation."""

    site_name: str
    site_url: str | None  # absolute, ending in '/'; None when the build has no public address
    date: str  # ISO date of the commit the site was built from

    def card_url(self, card_id: str) -> str:
        """The card's permanent address; with no site URL, its path from the site's root
        (`cards/<id>/`), which the page's script completes from the address it was loaded from."""
        if self.site_url is None:
            return f"cards/{card_id}/"
        return f"{self.site_url.rstrip('/')}/cards/{card_id}/"


def _bibtex_escape(value: str) -> str:
    return "".join("\\" + ch if ch in "{}&%$#_" else ch for ch in value)


# Characters of card and paper titles that plain LaTeX (pdflatex) cannot typeset as text.
LATEX_CHARACTERS = {**{ch: f"$\\{name}$" for name, ch in markup.GREEK.items() if not name.startswith("var")},
                    "ϵ": "$\\epsilon$", "φ": "$\\varphi$", "ᾱ": "$\\bar{\\alpha}$", "√": "$\\surd$",
                    "−": "-", "·": "$\\cdot$", "×": "$\\times$", "≤": "$\\le$", "≥": "$\\ge$",
                    "∞": "$\\infty$", "∑": "$\\sum$", "|": "$|$"}


def _bibtex_text(value: str) -> str:
    """A title for BibTeX: escaped, its script notation (A^π, d_k) as \\textsuperscript and
    \\textsubscript, Greek letters and math signs as LaTeX, so that the entry compiles."""
    def chars(text: str) -> str:
        return "".join(LATEX_CHARACTERS.get(ch, ch) for ch in _bibtex_escape(text))

    commands = {"^": "textsuperscript", "_": "textsubscript"}
    return markup._with_scripts(value, chars, lambda m, inner, _: f"\\{commands[m]}{{{inner}}}")


def _version(edition: Edition, record: CardRecord | None) -> tuple[str, str | None, str]:
    """The date the cited text is of, its release number (None if it is in no release) and how
    a citation names that version. A card exactly as in the site's release cites the release; a
    card added or changed after it cites this build's date, saying so."""
    released = record.released_as if record is not None else None
    if released is not None:
        return released.date, released.version, f"release {released.version} ({released.date})"
    if record is not None and record.current is not None:
        return (edition.date, None, f"unreleased version of {edition.date} "
                f"(after release {record.current.version})")
    return edition.date, None, f"version of {edition.date}"


def bibtex(card: Card, edition: Edition, record: CardRecord | None = None) -> str:
    """A @misc entry naming the release (or the date) of the card's text; `urldate` is the date
    accessed, which the page sets to the reader's day (docs/javascripts/cite.js)."""
    date, version, named = _version(edition, record)
    fields = {
        "title": "{" + _bibtex_text(card.title) + "}",
        "author": "{" + AUTHOR + "}",
        "howpublished": _bibtex_escape(edition.site_name),
        "year": date[:4],
        "url": edition.card_url(card.id),
        **({"version": version} if version else {}),
        "note": named[0].upper() + named[1:],
        "urldate": edition.date,
    }
    body = ",\n".join(f"  {key} = {{{value}}}" for key, value in fields.items())
    return f"@misc{{eqcards:{card.id},\n{body}\n}}"


def plain_citation(card: Card, edition: Edition, record: CardRecord | None = None) -> str:
    named = _version(edition, record)[2]
    return (f"{AUTHOR}. \u201c{markup.plain(card.title)}.\u201d {edition.site_name}, {named}. "
            f"{edition.card_url(card.id)} (accessed {edition.date}).")


def highwire_meta(card: Card, edition: Edition, record: CardRecord | None = None) -> dict[str, str]:
    """Highwire Press tags that Zotero and Google Scholar read from a page's <head>."""
    return {
        "citation_title": markup.plain(card.title),
        "citation_author": AUTHOR,
        "citation_publication_date": _version(edition, record)[0].replace("-", "/"),
        # Only a public address: with none, a reference manager reads the page's own.
        **({"citation_public_url": edition.card_url(card.id)} if edition.site_url else {}),
        "citation_publisher": edition.site_name,
    }


def render_cite_box(card: Card, edition: Edition, record: CardRecord | None = None) -> str:
    """A collapsible block; every code block gets a copy button from the theme. The dates
    accessed in it are this build's until the page's script puts in the reader's day.

    A build with no public address (no SITE_URL) writes the card's link from the site's root
    (`cards/<id>/`) and says so; the page's script (docs/javascripts/cite.js) puts in the address
    the page was loaded from, from `data-link` and `data-root` (the site's root, from the page)."""
    def block(title: str, lang: str, content: str) -> list[str]:
        return [f"    **{title}**", "", f"    ```{lang}", *[f"    {line}" for line in content.splitlines()],
                "    ```", ""]

    link = edition.card_url(card.id)
    relative = "" if edition.site_url else f' data-link="{html.escape(link)}" data-root="../../"'
    lines = [f'<div class="eqc-cite" data-accessed="{edition.date}"{relative} markdown>', "",
             '??? quote "BibTeX (this card and its primary source), plain text, link and LaTeX"', ""]
    if not edition.site_url:
        lines += ['    <p class="eqc-cite-relative">This copy of the site was built without its public '
                  f"address, so the links below are written from the site's home page ({link}): "
                  "put the address you are reading the site at in front of them.</p>", ""]
    lines += block("BibTeX", "bibtex", bibtex(card, edition, record))
    if card.sources:
        lines += block(f"BibTeX of the primary source, {source_short_name(card.sources[0])}", "bibtex",
                       source_bibtex(card.sources[0]))
    lines += block("Plain text", "text", plain_citation(card, edition, record))
    lines += block("Link to this card", "text", link)
    lines += block("Equation (LaTeX)", "latex", card.equation)
    return "\n".join([*lines, "</div>"])


# A source's venue, read for its BibTeX entry type: conference proceedings (by their words or the
# usual abbreviations), a technical report, a journal ("Name volume(number), pages"), a publisher.
PROCEEDINGS = re.compile(r"Proceedings|Conference|Workshop|workshop|Symposium|Advances in Neural|Findings of|"
                         r"\b(?:ICLR|NeurIPS|NIPS|ICML|ACL|EMNLP|NAACL|AAAI|IJCAI|COLM|COLING|SIGIR|KDD|CVPR|"
                         r"ICCV|ECCV|WWW|CIKM|WSDM|UAI|AISTATS|ECML|TREC)\b")
REPORT = re.compile(r"^(?P<before>.*?)\s*Technical Report\s+(?P<number>[^,]+?)(?:,\s*(?P<after>.*))?$")
JOURNAL = re.compile(r"^(?P<journal>.*?)\s+(?P<volume>[A-Z-]*\d+)(?:\((?P<number>[^)]+)\))?,"
                     r"\s*(?P<pages>\w+(?:–\w+)?)$")
JOURNAL_WORDS = re.compile(r"Journal|Transactions|Review|Letters|Annals")
PUBLISHER = re.compile(r"Press|Springer|Wiley|Kaufmann|Pearson|Chapman|Publishing|Publishers|Addison")
PAGES = re.compile(r",\s*(?P<pages>\d+–\d+)$")
SUFFIX = re.compile(r"^(?P<name>.*\S)\s+(?P<suffix>Jr\.?|Sr\.?|II|III|IV)$")
ORGANIZATION = re.compile(r"contributors|\bTeam\b|\bteam\b|\bInc\b|Foundation|\bGroup\b|\bProject\b|\(")
TITLE_STOPWORDS = {"a", "an", "the", "on", "of", "in", "for", "to", "and", "with", "is", "are", "do", "does"}


def _ascii(text: str) -> str:
    return unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode().lower()


def _braced(value: str) -> str:
    return "{" + _bibtex_escape(value).replace("–", "--") + "}"


def source_short_name(source: Source) -> str:
    """How a reference names a source in running text: 'Shannon (1948)', 'Kullback and Leibler
    (1951)', 'Peng et al. (2019)'."""
    names = [n.strip() for n in source.authors.split(",") if n.strip() and n.strip().rstrip(".") != "et al"]
    last = [n if ORGANIZATION.search(n) else SUFFIX.sub(r"\g<name>", n).split()[-1] for n in names]
    if len(last) > 2 or len(names) < len([n for n in source.authors.split(",") if n.strip()]):
        who = f"{last[0]} et al."
    else:
        who = " and ".join(last)
    return markup.text(f"{who} ({source.year})")


def _bibtex_name(name: str) -> str:
    """One author as BibTeX reads names: 'others' for et al., an organization in braces (kept
    whole), a suffix after the surname (Baird, III, Leemon C.)."""
    if name.rstrip(".") == "et al":
        return "others"
    if ORGANIZATION.search(name):
        return "{" + _bibtex_escape(name) + "}"
    if found := SUFFIX.match(name):
        *given, last = found.group("name").split()
        return _bibtex_escape(f"{last}, {found.group('suffix')}, {' '.join(given)}")
    return _bibtex_escape(name)


def _surname(name: str) -> str:
    """The word of an author's name that starts a citation key: the surname, or an organization's
    first word."""
    words = _ascii(SUFFIX.sub(r"\g<name>", name)).split() or ["anon"]
    return re.sub(r"[^a-z0-9]", "", words[0] if ORGANIZATION.search(name) else words[-1])


def source_bibtex(source: Source) -> str:
    """A source as a BibTeX entry of its own kind: @inproceedings, @article, @techreport, @book,
    @incollection, or @misc (an arXiv preprint, with eprint and archivePrefix; a web page)."""
    names = [n.strip() for n in source.authors.split(",") if n.strip()]
    authors = " and ".join(_bibtex_name(n) for n in names)
    venue = source.venue
    fields = {"author": "{" + authors + "}", "title": "{{" + _bibtex_text(source.title) + "}}"}
    if "arxiv" in venue.lower() and "preprint" in venue.lower():
        kind = "misc"
        fields["howpublished"] = _braced(f"arXiv preprint arXiv:{source.arxiv}" if source.arxiv else venue)
    elif report := REPORT.match(venue):
        kind = "techreport"
        fields["institution"] = _braced(report.group("after") or report.group("before") or venue)
        fields["number"] = _braced(report.group("number"))
    elif PROCEEDINGS.search(venue):
        kind = "inproceedings"
        pages = PAGES.search(venue)
        fields["booktitle"] = _braced(venue[:pages.start()] if pages else venue)
        if pages:
            fields["pages"] = _braced(pages.group("pages"))
    elif journal := JOURNAL.match(venue):
        kind = "article"
        fields["journal"] = _braced(journal.group("journal"))
        fields["volume"] = _braced(journal.group("volume"))
        if journal.group("number"):
            fields["number"] = _braced(journal.group("number"))
        fields["pages"] = _braced(journal.group("pages"))
    elif JOURNAL_WORDS.search(venue) and not PUBLISHER.search(venue):
        kind, fields["journal"] = "article", _braced(venue)
    elif PUBLISHER.search(venue):
        pages = PAGES.search(venue)
        if pages or "eds." in venue:  # a chapter in an edited book
            kind = "incollection"
            fields["booktitle"] = _braced(venue[:pages.start()] if pages else venue)
            if pages:
                fields["pages"] = _braced(pages.group("pages"))
        else:
            kind, fields["publisher"] = "book", _braced(venue)
    else:
        kind, fields["howpublished"] = "misc", _braced(venue)
    fields["year"] = "{" + str(source.year) + "}"
    if source.doi:
        fields["doi"] = "{" + source.doi + "}"
    if source.arxiv:
        fields.update(eprint="{" + source.arxiv + "}", archivePrefix="{arXiv}")
    if source.url:
        fields["url"] = "{" + source.url + "}"
    first = _surname(names[0]) if names else "anon"
    word = next((w for w in re.findall(r"[a-z0-9]+", _ascii(source.title)) if w not in TITLE_STOPWORDS), "")
    key = re.sub(r"[^a-z0-9]", "", first) + str(source.year) + word
    body = ",\n".join(f"  {name} = {value}" for name, value in fields.items())
    return f"@{kind}{{{key},\n{body}\n}}"


def redirect_page(relative_url: str, canonical_url: str | None) -> str:
    """A static page at a former id's URL that sends readers (and their #anchor) to the card.
    `canonical_url` is the card's public address, None when the site has none."""
    rel = html.escape(relative_url, quote=True)
    canonical = html.escape(canonical_url, quote=True) if canonical_url else None
    script_target = json.dumps(relative_url).replace("</", "<\\/")
    link = f"<link rel=\"canonical\" href=\"{canonical}\">" if canonical else ""
    return (
        "<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
        f"<title>Moved</title>{link}\n"
        f"<script>location.replace({script_target} + location.hash)</script>\n"
        f"<meta http-equiv=\"refresh\" content=\"0; url={rel}\">\n"
        f"</head><body><p>This card has moved to <a href=\"{rel}\">{canonical or 'its new address'}</a>."
        "</p></body></html>\n"
    )
