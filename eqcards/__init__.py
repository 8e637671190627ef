"""Equation Cards: load, verify and render formula cards, independent of MkDocs."""

__version__ = "0.1.0"
