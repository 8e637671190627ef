"""Checks shared by the browser tests of how a reader finds their way: where a page speaks of the
documents the site was built from ("seeds"), which only the About pages may."""

from __future__ import annotations

import re

# Pages that tell the site's provenance: About, the corrections it links, the coverage table.
PROVENANCE_PAGES = ("about/", "about/corrections/", "coverage/")
# "Seed" as a technical word, not the site's provenance: Personalized PageRank's restart
# distribution (its seeds), a seeded random generator, re-seeding k-means, the starting vocabulary
# of unigram tokenization, and DeepMind's SEED RL system.
TECHNICAL_SEED = re.compile(r"seed distribution|those seeds|from the seeds|mixture of seeds|per-seed|"
                            r"around a seed|leaves the seeds|any seed|seed-specific|seeded|re-seeding|"
                            r"seed vocabulary|SEED RL")
SEED = re.compile(r"\bseed\w*", re.IGNORECASE)


def seed_mentions(text: str) -> list[str]:
    """Each place the text speaks of seeds other than as a technical word, with some context."""
    text = TECHNICAL_SEED.sub("", text)
    return [" ".join(text[max(m.start() - 40, 0):m.end() + 30].split()) for m in SEED.finditer(text)]
