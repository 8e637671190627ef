"""Mutation testing: mutation (a formula's mutants), mutation_run (run, score), mutation_ledger."""
