"""The page's calculator script (docs/javascripts/calculator.js) run in QuickJS at build time.

A calculator's page shows its defaults' results and chart before any script runs in the browser:
the build writes what the script itself would write, so the two cannot differ and a visit does no
calculator work before its first paint.
"""

from __future__ import annotations

import json
from typing import Any

import quickjs

from ..core.config import PAGE_SCRIPTS_DIR

SCRIPT = PAGE_SCRIPTS_DIR / "calculator.js"
# The script reads `document` once, at its end, to find the page's forms: here there are none.
PAGE_STUB = ('var window = globalThis; '
             'var document = {readyState: "complete", querySelectorAll: function () { return []; }};')


def page_script() -> quickjs.Context:
    """A QuickJS context holding the script as a page loads it, with no form to start."""
    context = quickjs.Context()
    context.eval(PAGE_STUB)
    context.eval(SCRIPT.read_text(encoding="utf-8"))
    return context


def first_render(config: dict[str, Any]) -> dict[str, Any]:
    """What the script shows for `config` (the page's data-calculator) at its defaults:
    {"outputs": [{"name", "value", "text"}, ...], "chart": "<svg ...>" or ""}."""
    context = page_script()
    return json.loads(context.eval(f"JSON.stringify(window.eqcCalculator.render({json.dumps(config)}))"))
