"""Running snippets: runner (run_snippets), forkserver, worker, sandbox; cache, snippet_key, notebook."""
