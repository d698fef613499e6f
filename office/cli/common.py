"""What the command modules share: the consoles, failing with a status, JSON output, and the one way an async
command gets the Temporal client and the store (`with_services` / `run_with_services`).

Exit statuses of `office`:
  0  success
  1  the run failed or was cancelled (`submit --wait`, `watch`)
  2  bad input: a missing or invalid argument, file, workspace, profile or run (the message names it)
  3  a service is unreachable: the Temporal frontend or the database could not be connected to
"""

import asyncio
import contextlib
import json
import sys
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any, NoReturn, TypeVar

import typer
from rich.console import Console
from temporalio.client import Client

from office.settings import Settings
from office.temporal_client import connect
from store.repository import Store

EXIT_RUN_FAILED = 1
EXIT_USAGE = 2
EXIT_UNAVAILABLE = 3

console = Console()
err_console = Console(stderr=True)
T = TypeVar("T")


def fail(message: str, code: int = EXIT_USAGE) -> NoReturn:
    err_console.print(f"[red]error:[/] {message}")
    raise typer.Exit(code)


def print_json(data: Any) -> None:
    sys.stdout.write(json.dumps(data, indent=2, default=str) + "\n")


class ServiceUnavailable(Exception):
    """Temporal or the database could not be connected to; the message is one line for the user."""


class Services:
    """What `with_services` connected. Asking for one that was not requested is a programming error."""

    def __init__(self, client: Client | None, store: Store | None):
        self._client, self._store = client, store

    @property
    def client(self) -> Client:
        if self._client is None:
            raise RuntimeError("the command did not ask with_services for the Temporal client (client=True)")
        return self._client

    @property
    def store(self) -> Store:
        if self._store is None:
            raise RuntimeError("the command did not ask with_services for the store (store=True)")
        return self._store


def _one_line(err: BaseException) -> str:
    return " ".join(str(err).split()) or type(err).__name__


def _shown_url(url: str) -> str:
    from sqlalchemy.engine import make_url

    with contextlib.suppress(Exception):
        return make_url(url).render_as_string(hide_password=True)
    return url


@contextlib.asynccontextmanager
async def with_services(*, client: bool = False, store: bool = False) -> AsyncIterator[Services]:
    """Connects what the command asks for (TEMPORAL_* / OFFICE_DATABASE_URL), yields it, and closes it again.
    A failure to connect raises ServiceUnavailable; errors raised by the command itself pass through unchanged."""
    temporal: Client | None = None
    db: Store | None = None
    try:
        if client:
            try:
                temporal = await connect()
            except Exception as err:
                raise ServiceUnavailable(f"cannot connect to Temporal: {_one_line(err)}") from err
        if store:
            url = Settings.from_env().database_url
            db = Store(url)
            try:
                async with db.engine.connect():
                    pass
            except Exception as err:
                raise ServiceUnavailable(f"cannot open the database {_shown_url(url)}: {_one_line(err)}") from err
        yield Services(temporal, db)
    finally:
        if db is not None:
            await db.close()


def run_with_services(fn: Callable[[Services], Awaitable[T]], *, client: bool = False, store: bool = False) -> T:
    """Runs an async command body with the services it asked for; an unreachable service ends the command with
    one line on stderr and EXIT_UNAVAILABLE instead of a traceback."""

    async def body() -> T:
        async with with_services(client=client, store=store) as services:
            return await fn(services)

    try:
        return asyncio.run(body())
    except ServiceUnavailable as err:
        err_console.print(f"[red]error:[/] {err}", soft_wrap=True)  # one line, however narrow the terminal
        raise typer.Exit(EXIT_UNAVAILABLE) from None
