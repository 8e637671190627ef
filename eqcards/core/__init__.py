"""Groundwork for every stage: settings and input paths (config), card errors, atomic writes (files)."""
