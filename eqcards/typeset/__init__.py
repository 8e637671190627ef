"""Typesetting math: mathsvg (TeX to SVG), svgflat, speech (spoken labels), latex (formulas checked)."""
