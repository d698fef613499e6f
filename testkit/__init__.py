"""Scaffolding for the test suite and the benchmarks, not part of the product: an ephemeral stack (a real Temporal
dev server, the provider simulator, a migrated database, a worker) and throwaway PostgreSQL databases."""
