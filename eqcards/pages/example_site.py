"""The worked examples in the build: their runner jobs, pages, notebooks and navigation."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from ..core.config import Settings
from ..snippets.jobs import SnippetJob, SnippetResult
from ..snippets.notebook import helper_sources
from ..snippets.runner import RunReport
from .examples import (
    EXAMPLES_FOLDER,
    Example,
    FormulaTokens,
    absolute_card_links,
    describe_failure,
    executed_notebook,
    job,
    load_examples,
    render_index,
    used_in,
)

# nbconvert's page template adds scripts: MathJax (from a CDN, or an empty src) and a Mermaid
# loader that imports from a CDN. The site typesets at build time, the notebooks draw no diagrams,
# and pages must work with no network: a rendered notebook keeps no script and no comment.
SCRIPT_OR_COMMENT = re.compile(r"<script\b[^>]*>.*?</script>|<!--.*?-->", re.S | re.I)


@dataclass
class ExampleSet:
    settings: Settings
    examples: list[Example]
    tokens: FormulaTokens = field(default_factory=lambda: FormulaTokens([]))

    @classmethod
    def load(cls, settings: Settings, card_ids: set[str]) -> ExampleSet:
        return cls(settings, load_examples(settings.examples_dir, card_ids))

    @property
    def run_stage(self) -> Path:
        return self.settings.example_stage / "run"

    @property
    def page_stage(self) -> Path:
        """The folder mkdocs-jupyter reads the executed notebooks from (as examples/<slug>.ipynb)."""
        return self.settings.example_stage / "site"

    def jobs(self) -> list[SnippetJob]:
        return [job(e, self.run_stage) for e in self.examples]

    def failures(self, report: RunReport) -> list[str]:
        root = self.settings.root
        return [describe_failure(e, r, root) for e in self.examples
                if (r := report.results.get(f"example:{e.slug}")) is not None and not r.ok]

    def nav(self) -> list:
        if not self.examples:
            return []
        pages = [{e.title: f"{EXAMPLES_FOLDER}/{e.slug}.ipynb"} for e in self.examples]
        return [{"Worked examples": [f"{EXAMPLES_FOLDER}/index.md", *pages]}]

    def index_page(self, card_titles: dict[str, str]) -> dict[str, str]:
        if not self.examples:
            return {}
        return {f"{EXAMPLES_FOLDER}/index.md": render_index(self.examples, card_titles)}

    def used_in(self) -> dict[str, list[Example]]:
        return used_in(self.examples)

    def write_pages(self, report: RunReport | None) -> list[str]:
        """Write each executed notebook, formulas tokenized, for mkdocs-jupyter to render; returns
        their paths under the page stage. Unchanged files are not rewritten."""
        self.tokens = FormulaTokens([])
        written = []
        for example in self.examples:
            text = executed_notebook(example, self._result(example, report), markdown=self.tokens.protect)
            path = self.page_stage / EXAMPLES_FOLDER / f"{example.slug}.ipynb"
            if not path.is_file() or path.read_text(encoding="utf-8") != text:
                path.parent.mkdir(parents=True, exist_ok=True)
                path.write_text(text, encoding="utf-8")
            written.append(f"{EXAMPLES_FOLDER}/{example.slug}.ipynb")
        return written

    def downloads(self, report: RunReport | None, site_url: str) -> dict[str, str]:
        """Each executed notebook as a reader downloads it: the helper modules it imports written
        next to it by its first cell, card links absolute, formulas as TeX."""
        out = {}
        for example in self.examples:
            helpers = helper_sources(example.path, self.settings.snippets_dir)
            preamble = [("markdown", "Helper modules this notebook imports, written next to it so it "
                                     "runs anywhere with numpy, scipy and matplotlib.")]
            preamble += [("code", f"%%writefile {name}\n{text}") for name, text in sorted(helpers.items())]
            preamble += [("code", "%matplotlib inline")]
            out[self.download_uri(example)] = executed_notebook(
                example, self._result(example, report),
                markdown=lambda text: absolute_card_links(text, site_url), preamble=preamble)
        return out

    @staticmethod
    def download_uri(example: Example) -> str:
        return f"{EXAMPLES_FOLDER}/downloads/{example.slug}.ipynb"

    def example_for(self, src_uri: str) -> Example | None:
        path = Path(src_uri)
        if path.parent == Path(EXAMPLES_FOLDER) and path.suffix == ".ipynb":
            return next((e for e in self.examples if e.slug == path.stem), None)
        return None

    def finish_page(self, page_html: str, example: Example) -> str:
        """A rendered example page as the site serves it: no MathJax, formulas ready for the
        build's typesetting, and a download link at the top."""
        page_html = SCRIPT_OR_COMMENT.sub("", page_html)
        # Code and printed output scroll sideways in their own <pre>: a keyboard must reach it too.
        page_html = re.sub(r"<pre(?![^>]*tabindex)", '<pre tabindex="0"', page_html)
        page_html = self.tokens.restore(page_html)
        link = (f'<p class="eqc-download"><a href="../downloads/{example.slug}.ipynb" download>'
                "Download this notebook</a> (runs as it is with numpy, scipy and matplotlib)</p>")
        return link + page_html

    @staticmethod
    def _result(example: Example, report: RunReport | None) -> SnippetResult | None:
        return report.results.get(f"example:{example.slug}") if report else None
