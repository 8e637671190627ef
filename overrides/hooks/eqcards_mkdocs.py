"""MkDocs hooks: a thin adapter that hands every step to the eqcards package."""

from __future__ import annotations

import html
import logging
from pathlib import Path

from jinja2 import Environment
from mkdocs.config.defaults import MkDocsConfig
from mkdocs.exceptions import PluginError
from mkdocs.plugins import event_priority
from mkdocs.structure.files import File, Files
from mkdocs.structure.pages import Page

from eqcards.core.config import Settings, SiteURLError, edition_date, public_site_url, publishing
from eqcards.core.errors import CardError, CardErrors
from eqcards.live.livesite import serving
from eqcards.pages import markup
from eqcards.pages.citation import Edition
from eqcards.pages.site import CardSite
from eqcards.typeset.mathsvg import LatexError

log = logging.getLogger("mkdocs.plugins.eqcards")
_site: CardSite | None = None


def on_config(config: MkDocsConfig) -> MkDocsConfig:
    global _site
    # No site URL, no absolute link: a build without SITE_URL links nowhere but within itself
    # (a build for publishing without a public one fails here, before any work).
    try:
        config.site_url = public_site_url(config.site_url, publishing())
    except SiteURLError as exc:
        raise PluginError(str(exc)) from None
    if config.site_url is None:
        log.info("SITE_URL is not set: absolute links are off (no canonical links, sitemap or citation "
                 "URL; the citation box takes the address a card is read at)")
    settings = Settings.for_project(Path(config.config_file_path).parent, Path(config.docs_dir))
    # `make serve` (eqcards/live/serve.py) holds the site between edits and keeps each problem on its
    # page; a build loads it here, strictly.
    _site = serving()
    if _site is None:
        try:
            _site = CardSite.load(settings)
        except (CardError, CardErrors) as exc:
            raise PluginError(f"invalid cards:\n{exc}") from None
    _site.edition = Edition(config.site_name, config.site_url, edition_date(settings.root))
    _site.repo_url = config.repo_url
    config.nav = _site.nav()
    return config


# Before mkdocs-jupyter's on_files (priority 0), which takes the executed worked examples added
# here as notebook pages.
@event_priority(50)
def on_files(files: Files, config: MkDocsConfig) -> Files:
    assert _site is not None
    examples = _site.examples
    if _site.settings.execute and _site.report is None:  # serve has run them, failures and all
        report = _site.run()
        log.info(report.summary())
        if report.failures:
            root = _site.settings.root
            problems = [r.describe_failure(root) for r in report.failures
                        if not r.job.card_id.startswith("example:")]
            problems += examples.failures(report) if examples else []
            raise PluginError("\n\n".join(problems))
        if problems := _site.calculator_problems():
            raise PluginError("calculators that disagree with their snippets:\n"
                              + "\n".join(str(e) for e in problems))
    generated = {**_site.generated_pages(), **_site.figures(), **_site.redirects(), **_site.notebooks()}
    if examples:
        generated.update(examples.downloads(_site.report, config.site_url or ""))
        for uri in examples.write_pages(_site.report):
            files.append(File(uri, src_dir=str(examples.page_stage), dest_dir=config.site_dir,
                              use_directory_urls=config.use_directory_urls))
    for uri, content in generated.items():
        files.append(File.generated(config, uri, content=content))
    files.append(File.generated(config, "cards.json", content=_site.cards_json(config.site_url or "")))
    files.append(File.generated(config, "CITATION.cff",
                                abs_src_path=str(_site.settings.root / "CITATION.cff")))
    return files


def on_page_markdown(markdown: str, page: Page, config: MkDocsConfig, files: Files) -> str:
    assert _site is not None
    if page.file.src_uri == "index.md":
        return _site.home_page(markdown)
    card_id = _site.card_id_for(page.file.src_uri)
    if card_id is None:
        return markdown
    # The theme prints titles and descriptions into the page unescaped; a '<' in a card's
    # title must reach the reader as text, never as markup.
    card = _site.card(card_id)
    # Neither holds markup: their TeX and script notation are written as Unicode (markup.plain).
    page.meta["title"] = html.escape(markup.plain(card.title), quote=True)
    page.meta["description"] = html.escape(markup.plain(card.summary), quote=True)
    page.meta["citation"] = _site.citation_meta(card_id)
    page.meta["tag_links"] = _site.tag_links(card_id)  # shown by overrides/partials/tags.html
    return _site.card_page(card_id)


def on_page_content(html: str, page: Page, config: MkDocsConfig, files: Files) -> str:
    assert _site is not None
    example = _site.examples.example_for(page.file.src_uri) if _site.examples else None
    if example is not None:
        html = _site.examples.finish_page(html, example)
    try:
        return _site.typeset(html)
    except LatexError as exc:
        raise PluginError(f"{page.file.src_uri}: formula does not typeset: {exc}") from None


def on_env(env: Environment, config: MkDocsConfig, files: Files) -> Environment:
    # MkDocs dates every page by the build's clock (the sitemap's <lastmod>, and the gzipped
    # sitemap's timestamp, which is the latest of them); the site's one date is its edition's.
    assert _site is not None
    for file in files.documentation_pages():
        if file.page is not None:
            file.page.update_date = _site.edition.date
    return env


def on_post_build(config: MkDocsConfig) -> None:
    # Hooks run after the plugins, so the theme's search plugin has written its index by now.
    assert _site is not None
    index = Path(config.site_dir) / "search" / "search_index.json"
    if index.is_file():
        _site.rewrite_search_index(index)
    if not config.site_url:  # a sitemap lists absolute URLs only; with no address it has none
        for name in ("sitemap.xml", "sitemap.xml.gz"):
            (Path(config.site_dir) / name).unlink(missing_ok=True)
