"""MkDocs page by page for `make serve`: one full build kept in memory, then only the pages an edit changed.

MkDocs 1.6 has no partial build: `mkdocs serve` builds every page again for every save. Here the
steps of `mkdocs.commands.build.build` run once and what they made is kept (configuration, files,
navigation, template environment, each page's search entries). An edited card then goes through
the same functions, plugins and hooks as in a build, alone; the pages that show every card are
compared with what they were built from and only those that differ are built again. The
navigation lists parts and topics, never cards, so a card edit leaves every other page's sidebar
as it was; when the navigation or the set of generated pages changes, `NeedsFullBuild` says so.

A page that cannot be built is built anyway, as its problem (eqcards.live.livesite.Problem) in the
theme; a page that builds with a problem (a failing snippet, a MkDocs warning that
`mkdocs build --strict` would stop at) shows the problem above its content.
"""

from __future__ import annotations

import html
import logging
import shutil
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from mkdocs.commands import build as mkbuild
from mkdocs.config import load_config
from mkdocs.config.defaults import MkDocsConfig
from mkdocs.structure.files import File, Files, get_files, set_exclusions
from mkdocs.structure.nav import Navigation, get_navigation
from mkdocs.structure.pages import Page
from mkdocs.structure.toc import get_toc

from .livesite import SITE, Edit, LiveSite, Problem

log = logging.getLogger("eqcards.serve")


class NeedsFullBuild(Exception):
    """The edit changed the navigation or the set of pages: only a full build is right."""


@contextmanager
def mkdocs_warnings() -> Iterator[list[str]]:
    """The warnings MkDocs logs meanwhile (`mkdocs build --strict` fails on each of them)."""
    found: list[str] = []

    class Collect(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            if record.levelno == logging.WARNING:
                found.append(record.getMessage())

    handler = Collect()
    logger = logging.getLogger("mkdocs")
    logger.addHandler(handler)
    try:
        yield found
    finally:
        logger.removeHandler(handler)


def problems_html(problems: list[Problem], blocking: bool) -> str:
    """The box a page shows its problems in (the theme's own "failure" admonition)."""
    title = ("This page cannot be shown until this is fixed" if blocking
             else "make build would stop here")
    items = "".join(f'<pre style="white-space:pre-wrap"><code>{html.escape(p.text)}</code></pre>'
                    for p in problems)
    return (f'<div class="admonition failure" id="eqcards-serve-problems"><p class="admonition-title">'
            f"{title}</p>{items}<p>Fix the file and save it: this page reloads by itself.</p></div>")


def page_url(file: File) -> str:
    """The URL path the server answers for a page: "/", "/cards/kl-divergence/"."""
    return "/" + file.url.removesuffix("index.html")


class LiveBuild:
    """The built site of a `make serve` session."""

    def __init__(self, config_file: Path, live: LiveSite, serve_url: str,
                 lock: threading.Lock | None = None) -> None:
        self.config_file = config_file
        self.live = live
        self.serve_url = serve_url
        self.lock = lock or threading.Lock()  # held while a file of the served site is written
        self.config: MkDocsConfig | None = None
        self.files: Files | None = None
        self.nav: Navigation | None = None
        self.env = None
        self._entries: dict[str, list[dict]] = {}  # each page's search entries, by src_uri
        self._page_problems: dict[str, list[Problem]] = {}  # found while building the page
        self._shown: dict[str, tuple[str, ...]] = {}  # the problems each page was built with
        self._site_problems: list[Problem] = []
        self._nav: list = []
        self._generated: set[str] = set()
        self._redirects: set[str] = set()
        self._pages_changed = False

    @property
    def site_dir(self) -> Path:
        assert self.config is not None
        return Path(self.config.site_dir)

    def problems(self) -> list[Problem]:
        return self._site_problems + [p for uri in sorted(self._page_problems)
                                      for p in self._page_problems[uri]]

    # -- the whole site ---------------------------------------------------------------------

    def full(self, site_dir: Path) -> None:
        """Build everything into `site_dir` (a new folder: the one served until now is untouched),
        as `mkdocs build` does, but with every page's problem shown on it rather than raised.
        Raises only what stops a build before its pages (an unreadable mkdocs.yml)."""
        site = self.live.site
        assert site is not None
        config = load_config(config_file=str(self.config_file), site_dir=str(site_dir))
        config.site_url = self.serve_url
        config.plugins.on_startup(command="build", dirty=False)
        self._entries, self._page_problems, self._shown, self._site_problems = {}, {}, {}, []
        with mkdocs_warnings() as warned:
            config = config.plugins.on_config(config)
            config.plugins.on_pre_build(config=config)
            site_dir.mkdir(parents=True, exist_ok=True)
            files = get_files(config)
            env = config.theme.get_env()
            files.add_files_from_theme(env, config)
            files = config.plugins.on_files(files, config=config)
            set_exclusions(files, config)
            nav = get_navigation(files, config)
            nav = config.plugins.on_nav(nav, config=config, files=files)
        self.config, self.files, self.nav, self.env = config, files, nav, env
        self._site_problems += [Problem(SITE, f"mkdocs: {w}", blocking=False) for w in warned]
        self._nav = site.nav()
        self._generated = set(site.generated_pages())
        self._redirects = set(site.redirects())
        for file in files.documentation_pages():
            if file.page is None:
                Page(None, file, config)
        for file in files.documentation_pages():
            assert file.page is not None
            self._populate(file.page)
        self.env = config.plugins.on_env(env, config=config, files=files)
        files.copy_static_files()
        for template in config.theme.static_templates:
            mkbuild._build_theme_template(template, self.env, files, config, nav)
        for template in config.extra_templates:
            mkbuild._build_extra_template(template, files, config, nav)
        doc_files = files.documentation_pages()
        for file in doc_files:
            assert file.page is not None
            self._build(file.page, doc_files)
        for file in doc_files:
            assert file.page is not None
            self._check_anchors(file.page)
        self._post_build()

    # -- one edit, now ----------------------------------------------------------------------

    def edited(self, edit: Edit, before: Callable[[str], object] = lambda uri: None,
               done: Callable[[str], None] = lambda url: None) -> list[str]:
        """Build the edited cards' pages (and write their figures and notebook) at once, one by
        one: `before(src_uri)` is called before each (to run its snippet), `done(url)` once it is
        written. Returns the URLs of the pages rewritten."""
        assert self.files is not None
        urls = [self._remove_page(uri) for uri in edit.removed if self.files.get_file_from_path(uri)]
        for url in urls:
            done(url)
        for uri in edit.pages:
            before(uri)
            file = self.files.get_file_from_path(uri) or self._add_page(uri)
            assert file.page is not None
            self._card_files(Path(uri).stem)
            self._populate(file.page)
            self._build(file.page, self.files.documentation_pages())
            self._check_anchors(file.page)
            urls.append(page_url(file))
            done(urls[-1])
        return urls

    # -- everything else, a moment later ----------------------------------------------------

    def stale(self, nearby: set[str]) -> list[Page]:
        """The pages that no longer show the cards as they are: generated pages (cheatsheets,
        topic and part pages, symbols, coverage, errata, numbers) whose Markdown changed, the
        home page, the `nearby` cards' pages whose Markdown changed, and every page whose
        problems changed. Raises NeedsFullBuild when the navigation or the set of pages moved."""
        site, files = self.live.site, self.files
        assert site is not None and files is not None
        generated = site.generated_pages()
        if site.nav() != self._nav or set(generated) != self._generated:
            raise NeedsFullBuild("the navigation changed")
        pages: dict[str, Page] = {}
        for uri, text in generated.items():
            file = files.get_file_from_path(uri)
            assert file is not None and file.page is not None
            if file.content_string != text:
                file.content_string = text
                pages[uri] = file.page
        ids = {c.id for c in site.cards}
        for card_id in sorted(nearby & ids):
            file = files.get_file_from_path(f"cards/{card_id}.md")
            if file is not None and file.page is not None and file.page.markdown != site.card_page(card_id):
                pages[file.src_uri] = file.page
        home = files.get_file_from_path("index.md")
        if home is not None and home.page is not None and self._markdown_now(home.page) != home.page.markdown:
            pages["index.md"] = home.page
        for uri in set(self._shown) | {p.page for p in self.live.problems()}:
            file = files.get_file_from_path(uri)
            if file is not None and file.page is not None and \
                    self._problem_key(uri) != self._shown.get(uri, ()):
                pages[uri] = file.page
        return list(pages.values())

    def rebuild(self, pages: list[Page], stop: Callable[[], bool] = lambda: False,
                done: Callable[[str], None] = lambda url: None) -> bool:
        """Build these pages again, one at a time, calling `done` with each one's URL; stops early
        (returns False) as soon as `stop()` says a new edit is waiting."""
        assert self.files is not None
        doc_files = self.files.documentation_pages()
        for page in pages:
            if stop():
                return False
            self._populate(page)
            self._build(page, doc_files)
            self._check_anchors(page)
            done(page_url(page.file))
        return True

    def finish(self) -> None:
        """Everything built from all cards that is not a page: cards.json, redirects of former
        ids, the search index, the sitemap (when pages came or went), tags."""
        site, files, config = self.live.site, self.files, self.config
        assert site is not None and files is not None and config is not None
        self._set_generated({"cards.json": site.cards_json(config.site_url or "")})
        redirects = site.redirects()
        self._set_generated(redirects, remove=self._redirects - set(redirects))
        self._redirects = set(redirects)
        self._tags_in_site_order()
        self.env = config.plugins.on_env(self.env, config=config, files=files)
        if self._pages_changed:
            for template in config.theme.static_templates:
                with self.lock:
                    mkbuild._build_theme_template(template, self.env, files, config, self.nav)
            self._pages_changed = False
        self._post_build()

    # -- internals --------------------------------------------------------------------------

    def _populate(self, page: Page) -> None:
        """Markdown to HTML through every plugin and hook; a problem makes the page its problem."""
        assert self.config is not None and self.files is not None
        uri = page.file.src_uri
        problems = list(self.live.page_problems(uri))
        self._page_problems.pop(uri, None)
        if any(p.blocking for p in problems):
            self._as_problems(page, [p for p in problems if p.blocking], blocking=True)
            return
        with mkdocs_warnings() as warned:
            try:
                mkbuild._populate_page(page, self.config, self.files)
            except Exception as exc:  # shown on the page; the server goes on
                message = str(exc).removeprefix(f"{uri}: ")
                self._page_problems[uri] = [Problem(uri, f"{self._docs_path(uri)}: {message}")]
                self._as_problems(page, self._page_problems[uri], blocking=True)
                return
        if warned:
            self._page_problems[uri] = [Problem(uri, f"{self._docs_path(uri)}: {w}", blocking=False)
                                        for w in warned]
        shown = problems + self._page_problems.get(uri, [])
        if shown:
            page.content = problems_html(shown, blocking=False) + (page.content or "")

    def _as_problems(self, page: Page, problems: list[Problem], blocking: bool) -> None:
        page.markdown = ""  # never a card's Markdown: the page is built again once fixed
        page.meta = {"title": f"Problem in {self._docs_path(page.file.src_uri)}", "search": {"exclude": True}}
        page.content = problems_html(problems, blocking)
        page.toc = get_toc([])

    def _build(self, page: Page, doc_files: list[File]) -> None:
        """The page in the theme, written to the site; its search entries kept apart."""
        assert self.config is not None and self.nav is not None
        uri = page.file.src_uri
        index = self._search_index()
        with self.lock:
            start = len(index.entries)
            try:
                mkbuild._build_page(page, self.config, doc_files, self.nav, self.env)
            except Exception as exc:
                self._page_problems.setdefault(uri, []).append(
                    Problem(uri, f"{self._docs_path(uri)}: the theme could not render it: {exc}"))
                self._as_problems(page, self._page_problems[uri], blocking=True)
                del index.entries[start:]
                mkbuild._build_page(page, self.config, doc_files, self.nav, self.env)
            self._entries[uri] = index.entries[start:]
            del index.entries[start:]
        self._shown[uri] = self._problem_key(uri)

    def _check_anchors(self, page: Page) -> None:
        assert self.config is not None and self.files is not None
        with mkdocs_warnings() as warned:
            page.validate_anchor_links(files=self.files, log_level=self.config.validation.links.anchors)
        uri = page.file.src_uri
        if warned:
            self._page_problems.setdefault(uri, []).extend(
                Problem(uri, f"{self._docs_path(uri)}: {w}", blocking=False) for w in warned)

    def _problem_key(self, uri: str) -> tuple[str, ...]:
        return tuple(p.text for p in self.live.page_problems(uri))

    def _post_build(self) -> None:
        """The search index (the theme's, from every page's entries in site order, then ours)."""
        assert self.config is not None and self.files is not None
        index = self._search_index()
        index.entries = [entry for file in self.files.documentation_pages()
                         for entry in self._entries.get(file.src_uri, [])]
        with self.lock:
            self.config.plugins.on_post_build(config=self.config)
        index.entries = []

    def _search_index(self):
        """The theme search plugin's index (material.plugins.search.plugin.SearchIndex)."""
        assert self.config is not None
        for plugin in self.config.plugins.values():
            index = getattr(plugin, "search_index", None)
            if index is not None and hasattr(index, "entries"):
                return index
        raise RuntimeError("the theme's search plugin is not configured")

    def _tags_in_site_order(self) -> None:
        """The tags plugin lists pages in the order they were last read; a page read again after
        it failed, or a new card, would come last in tags.json (and a deleted one stay). Put
        them in site order."""
        assert self.config is not None and self.files is not None
        order = {f.url: i for i, f in enumerate(self.files.documentation_pages())}
        for plugin in self.config.plugins.values():
            data = getattr(getattr(plugin, "mappings", None), "data", None)
            if isinstance(data, dict):
                items = sorted(((url, m) for url, m in data.items() if url in order),
                               key=lambda item: order[item[0]])
                data.clear()
                data.update(items)

    def _markdown_now(self, page: Page) -> str | None:
        """A page's Markdown as the hooks would make it now (read again from its file)."""
        assert self.config is not None and self.files is not None
        old = page.markdown
        page.read_source(self.config)
        new = self.config.plugins.on_page_markdown(page.markdown, page=page, config=self.config,
                                                   files=self.files)
        page.markdown = old
        return new

    def _docs_path(self, uri: str) -> str:
        assert self.config is not None
        docs = Path(self.config.docs_dir)
        root = self.live.settings.root
        return str((docs / uri).relative_to(root)) if docs.is_relative_to(root) else str(docs / uri)

    def _add_page(self, uri: str) -> File:
        """A new card's page, among the other cards where a build would list it (the sitemap and
        the search index follow this order)."""
        assert self.config is not None and self.files is not None
        file = File(uri, self.config.docs_dir, self.config.site_dir, self.config.use_directory_urls)
        listed = list(self.files)
        cards = [i for i, f in enumerate(listed) if f.is_documentation_page()
                 and Path(f.src_uri).parent == Path(uri).parent]
        before = [i for i in cards if listed[i].src_uri < uri]
        listed.insert(before[-1] + 1 if before else cards[0] if cards else len(listed), file)
        self.files = Files(listed)
        set_exclusions([file], self.config)
        Page(None, file, self.config)
        self._pages_changed = True
        return file

    def _remove_page(self, uri: str) -> str:
        """Take a deleted card's page, figures and notebook out of the site."""
        assert self.files is not None
        file = self.files.get_file_from_path(uri)
        assert file is not None
        url = page_url(file)
        self.files.remove(file)
        self._entries.pop(uri, None)
        self._page_problems.pop(uri, None)
        self._shown.pop(uri, None)
        self._card_files(Path(uri).stem, keep=False)
        with self.lock:
            shutil.rmtree(Path(file.abs_dest_path).parent, ignore_errors=True)
        self._pages_changed = True
        return url

    def _card_files(self, card_id: str, keep: bool = True) -> None:
        """A card's figures and notebook as its snippet and card now are."""
        site, files = self.live.site, self.files
        assert site is not None and files is not None
        prefix = f"cards/{card_id}/"
        old = {f.src_uri for f in files if f.src_uri.startswith(prefix) and not f.is_documentation_page()
               and f.src_uri not in self._redirects}
        wanted: dict[str, str] = {}
        card = next((c for c in site.cards if c.id == card_id), None)
        if keep and card is not None:
            wanted.update(site.card_figures(card))
            try:
                wanted[f"{prefix}{card_id}.ipynb"] = site.notebook(card)
            except OSError:
                pass  # no snippet file: the card's page says so
        self._set_generated(wanted, remove=old - set(wanted))

    def _set_generated(self, contents: dict[str, str], remove: set[str] = frozenset()) -> None:
        """Generated files (not pages) with this content, written to the site if it changed."""
        assert self.config is not None and self.files is not None
        for uri, content in contents.items():
            file = self.files.get_file_from_path(uri)
            if file is None:
                file = File.generated(self.config, uri, content=content)
                self.files.append(file)
            elif file.content_string == content and Path(file.abs_dest_path).is_file():
                continue
            file.content_string = content
            with self.lock:
                file.copy_file()
        for uri in remove:
            file = self.files.get_file_from_path(uri)
            if file is not None:
                self.files.remove(file)
                with self.lock:
                    Path(file.abs_dest_path).unlink(missing_ok=True)
