"""A built site in a browser, for tests and the benchmark: chromium (its flags), localserve (a server)."""
