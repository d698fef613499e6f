"""Persistence: sqlmodel tables, one repository per aggregate and Alembic migrations.

Layout: `database` (engine, units of work, asyncpg's own connection, idempotent writes); one repository per
aggregate: `configuration`, `transcript`, `attempts`, `runs`, `capacity` (the interface; `capacity_locking` and
`capacity_cas` its implementations, `turn_path` the compare-and-set statements, `columns` their column lists from
the table definitions), `selections` (read side; writes: `preferences`, `watchdog`), `catalogs`, `messages`;
`repository.Store` the facade that delegates to them while callers move; `rows` the row ↔ domain mapping.

Backends (a decision): SQLite is the embedded and development backend (`make run`, `office dev`, the tests, one
worker host); PostgreSQL is the production backend (workers on several hosts, `infra/`). Both pass one capacity
contract suite (tests/store/test_capacity_contract.py): row locks on SQLite, compare-and-set on PostgreSQL. SQLite's
lock is its file's, so processes sharing it must share a host: a worker on SQLite says so at start
(`engine.embedded_notice`) and names PostgreSQL for more hosts."""
