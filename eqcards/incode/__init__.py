"""The "In code" stage: each card's formula as the libraries people use compute it, checked.

`libraries.py` says which libraries a region may name (the build's own, and the heavy ones that only
`make libcheck` installs); `problems.py` holds a card's `in_code:` entries to its snippet's regions;
`ledger.py` records what `make libcheck` ran (`libcheck.py`) and tells which mappings changed since.
"""
