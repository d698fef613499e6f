"""Column lists and defaults taken from the table definitions (store.tables), for the statements store.turn_path
writes by hand: a column added to a table is named by them without anyone editing a list."""

from typing import Any

from sqlalchemy import Column, Table
from sqlalchemy.sql.schema import ScalarElementColumnDefault
from sqlmodel import SQLModel


def table_of(model: type[SQLModel]) -> Table:
    table = getattr(model, "__table__", None)
    if not isinstance(table, Table):
        raise TypeError(f"{model.__name__} is not a table model")
    return table


def names(table: Table, *, without: tuple[str, ...] = ()) -> tuple[str, ...]:
    """The table's columns in definition order, less `without` and less columns the database numbers itself."""
    return tuple(c.name for c in table.columns if c.name not in without and not _numbered(table, c))


def _numbered(table: Table, column: Column[Any]) -> bool:
    return column is table.autoincrement_column


def default_sql(column: Column[Any]) -> str:
    """The column's default (SQLAlchemy applies these client-side, so a hand-written INSERT must say them) as a
    PostgreSQL literal; NULL for a column without one. A NOT NULL column without a default has no value to
    give: a statement that leaves it out could never succeed."""
    default = column.default
    if isinstance(default, ScalarElementColumnDefault):
        return sql_literal(default.arg)
    if default is not None:
        raise ValueError(f"{column.table.name}.{column.name}: a default that is not a constant needs a value")
    if not column.nullable:
        raise ValueError(f"{column.table.name}.{column.name} is NOT NULL without a default: the statement must give it")
    return "NULL"


def sql_literal(value: object) -> str:
    """A constant as PostgreSQL writes it."""
    if value is None:
        return "NULL"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return repr(value)
    if isinstance(value, str):
        return "'" + value.replace("'", "''") + "'"
    raise ValueError(f"no SQL literal for the default {value!r}")


def insert_sql(table: Table, given: dict[str, str], source: str = "VALUES ({values})", tail: str = "") -> str:
    """`INSERT INTO table (every column) <source>` with `given` SQL expressions for some columns and the others'
    defaults; `source` places the comma-separated values (`VALUES ({values})`, `SELECT {values} FROM …`)."""
    unknown = set(given) - set(table.columns.keys())
    if unknown:
        raise ValueError(f"{table.name} has no column {', '.join(sorted(unknown))}")
    columns = names(table)
    values = ", ".join(given[c] if c in given else default_sql(table.columns[c]) for c in columns)
    return f"INSERT INTO {table.name} ({', '.join(columns)}) {source.format(values=values)}{tail}"
