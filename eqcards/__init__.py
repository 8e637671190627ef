"""Equation Cards: load, verify and render formula cards, independent of MkDocs.

Each subpackage is a stage that cards pass through; a stage imports only from the stages below it
(tests/test_architecture.py holds the package to LAYERS). From the bottom up:
core -> cards -> snippets -> incode -> typeset | mutants | calculators -> pages
-> live | browser | portability.
"""

__version__ = "0.1.0"

# The stages, lowest first. Stages in one tuple are peers: neither imports the other.
LAYERS = (
    ("core",),  # settings, errors, atomic writes
    ("cards",),  # card files loaded and validated
    ("snippets",),  # each card's snippet run, sandboxed and cached
    ("incode",),  # the formula as libraries compute it: in_code entries, the libcheck ledger and run
    # formulas typeset to SVG; mutation testing of the snippets; the calculators' expressions
    # checked in QuickJS against the snippets' formulas
    ("typeset", "mutants", "calculators"),
    ("pages",),  # every page of the site, and the build that makes them
    # `make serve`; the built site in a browser, for tests and the benchmark; every snippet
    # under other BLAS kernels (`make portability`)
    ("live", "browser", "portability"),
)
