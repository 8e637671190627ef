"""Generating pages: site.CardSite runs the build; render (card pages), listings, search, export, examples."""
