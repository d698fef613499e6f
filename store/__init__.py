"""Persistence: sqlmodel tables, queries and Alembic migrations (PostgreSQL via asyncpg, SQLite embedded)."""
