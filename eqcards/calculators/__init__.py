"""Calculators: each cards JavaScript expressions checked against its snippets formula."""
