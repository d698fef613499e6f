"""What the command modules share: the consoles, failing with a status, JSON output, and the one way an async
command gets the Temporal client and the store (`with_services` / `run_with_services`).

Exit statuses of `office` (every failure is one line on stderr naming what to fix, never a traceback):
  0  success
  1  the run failed or was cancelled (`submit --wait`, `watch`)
  2  bad input: a missing or invalid argument, file, workspace, profile, tier or run id, or a malformed
     setting in the environment (OFFICE_DATABASE_URL, TEMPORAL_ADDRESS, TEMPORAL_NAMESPACE,
     OFFICE_CODEC_KEYS_FILE), or a run that cannot take the request (`runs say` to a run that has ended);
     nothing was started or saved
  3  a service is unreachable: the Temporal frontend or the database could not be connected to (or the
     database has no office tables yet: `office db upgrade`)
  4  `submit --wait`: the run parked (it needs a person: fixed credentials, a decision, or capacity); it keeps
     waiting on the server; the status `parked` and the park reason are printed, and
     `office runs resume|decide RUN` continues it
  5  `bench`: the benchmarks are not installed (they live in the source checkout, not in the wheel)
"""

import asyncio
import contextlib
import json
import os
import re
import sys
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import TYPE_CHECKING, Annotated, Any, NoReturn, TypeVar

import typer
from rich.console import Console

from office.settings import Settings

if TYPE_CHECKING:  # imported when connecting: a command that fails on its input never pays for them
    from temporalio.client import Client

    from store.repository import Store

EXIT_RUN_FAILED = 1
EXIT_USAGE = 2
EXIT_UNAVAILABLE = 3
EXIT_PARKED = 4
EXIT_NOT_INSTALLED = 5

# Options several commands share, declared once (typer copies the option for each command that uses it).
JsonFlag = Annotated[bool, typer.Option("--json")]
# Who a recorded decision or pin is by: the login name when the command starts.
DEFAULT_ACTOR = os.environ.get("USER", "user")

console = Console()
err_console = Console(stderr=True)
T = TypeVar("T")


def fail(message: str, code: int = EXIT_USAGE) -> NoReturn:
    line(message)
    raise typer.Exit(code)


def print_json(data: Any) -> None:
    sys.stdout.write(json.dumps(data, indent=2, default=str) + "\n")


class ServiceUnavailable(Exception):
    """Temporal or the database could not be connected to; the message is one line for the user."""


class BadSetting(Exception):
    """A malformed setting in the environment (a URL, an address, a namespace); one line naming it and the fix."""


class Services:
    """What `with_services` connected. Asking for one that was not requested is a programming error."""

    def __init__(self, client: "Client | None", store: "Store | None"):
        self._client, self._store = client, store

    @property
    def client(self) -> "Client":
        if self._client is None:
            raise RuntimeError("the command did not ask with_services for the Temporal client (client=True)")
        return self._client

    @property
    def store(self) -> "Store":
        if self._store is None:
            raise RuntimeError("the command did not ask with_services for the store (store=True)")
        return self._store


def _one_line(err: BaseException) -> str:
    text = re.sub(r"\(Background on this error at: [^)]*\)", "", str(err))
    text = re.sub(r"^\([a-zA-Z0-9_.]+\)\s*", "", text.strip())  # "(sqlalchemy.dialects….Error) "
    return " ".join(text.split()) or type(err).__name__


def _temporal_address() -> str:
    with contextlib.suppress(Exception):
        from temporalio.envconfig import ClientConfig

        return str(ClientConfig.load_client_connect_config().get("target_host") or "localhost:7233")
    return os.environ.get("TEMPORAL_ADDRESS", "localhost:7233")


def _temporal_reason(err: BaseException) -> str:
    text = str(err)
    for pattern, reason in (
        (r"[Cc]onnection refused", "connection refused"),
        (r"dns error|Name or service not known|nodename nor servname", "the host name does not resolve"),
        (r"[Tt]imed? ?out|deadline", "timed out"),
        (r"[Cc]onnection reset|broken pipe", "the connection was reset (is it a Temporal frontend?)"),
    ):
        if re.search(pattern, text):
            return reason
    return _one_line(err)


async def connect_temporal() -> "Client":
    """The Temporal client for TEMPORAL_ADDRESS / TEMPORAL_NAMESPACE, with the namespace checked: a bad address
    or namespace is a BadSetting, an unreachable frontend a ServiceUnavailable (one line each)."""
    from temporalio.api.workflowservice.v1 import DescribeNamespaceRequest
    from temporalio.service import RPCError, RPCStatusCode

    from office.codec import CodecKeyError
    from office.temporal_client import connect

    address = _temporal_address()
    try:
        client = await connect()
    except CodecKeyError as err:
        raise BadSetting(f"{_one_line(err)}; fix the key file or unset OFFICE_CODEC_KEYS_FILE") from err
    except Exception as err:
        if re.search(r"invalid (target URL|port|uri)|InvalidUri", str(err), re.IGNORECASE):
            raise BadSetting(
                f"TEMPORAL_ADDRESS {address!r} is not host:port ({_one_line(err)}); set it like localhost:7233"
            ) from err
        raise ServiceUnavailable(
            f"cannot connect to Temporal at {address} (TEMPORAL_ADDRESS): {_temporal_reason(err)}; start it "
            f"(`office dev`) or set TEMPORAL_ADDRESS to the frontend's host:port"
        ) from err
    try:
        await client.workflow_service.describe_namespace(DescribeNamespaceRequest(namespace=client.namespace))
    except RPCError as err:
        if err.status == RPCStatusCode.NOT_FOUND:
            raise BadSetting(
                f"TEMPORAL_NAMESPACE: namespace {client.namespace!r} does not exist on {address}; set "
                f"TEMPORAL_NAMESPACE to an existing one (e.g. default) or create it with "
                f"`temporal operator namespace create {client.namespace}`"
            ) from err
        raise ServiceUnavailable(f"Temporal at {address} cannot be used: {_one_line(err)}") from err
    return client


def _database_hint(url: str, err: BaseException) -> str:
    text = str(err)
    if re.search(r'database "[^"]+" does not exist', text):
        return "; create it and run `office db upgrade`, or fix OFFICE_DATABASE_URL"
    if "unable to open database file" in text:
        return "; make its directory exist and be writable, or fix OFFICE_DATABASE_URL"
    return "; start the database or fix OFFICE_DATABASE_URL"


def _shown_url(url: str) -> str:
    from sqlalchemy.engine import make_url

    with contextlib.suppress(Exception):
        return make_url(url).render_as_string(hide_password=True)
    return url


@contextlib.asynccontextmanager
async def with_services(*, client: bool = False, store: bool = False) -> AsyncIterator[Services]:
    """Connects what the command asks for (TEMPORAL_* / OFFICE_DATABASE_URL), yields it, and closes it again.
    A failure to connect raises ServiceUnavailable; errors raised by the command itself pass through unchanged."""
    from store.repository import Store

    temporal: Client | None = None
    db: Store | None = None
    try:
        if client:
            temporal = await connect_temporal()
        if store:
            url = Settings.from_env().database_url
            try:
                db = Store(url)
            except Exception as err:  # an unsupported scheme or a URL that does not parse
                raise BadSetting(
                    f"OFFICE_DATABASE_URL {_shown_url(url)!r} is not a supported database URL: use "
                    f"postgresql://user@host:port/db or sqlite:///path/office.db"
                ) from err
            try:
                async with db.engine.connect():
                    pass
            except Exception as err:
                raise ServiceUnavailable(
                    f"cannot open the database {_shown_url(url)}: {_one_line(err)}{_database_hint(url, err)}"
                ) from err
        yield Services(temporal, db)
    finally:
        if db is not None:
            await db.close()


def run_with_services(fn: Callable[[Services], Awaitable[T]], *, client: bool = False, store: bool = False) -> T:
    """Runs an async command body with the services it asked for; an unreachable service ends the command with
    one line on stderr and EXIT_UNAVAILABLE instead of a traceback."""

    async def body() -> T:
        from sqlalchemy.exc import DBAPIError
        from temporalio.service import RPCError, RPCStatusCode

        from office.codec import PlainPayloadRefused

        async with with_services(client=client, store=store) as services:
            try:
                return await fn(services)
            except PlainPayloadRefused as err:  # a run started by a client without the key, or before encryption
                raise BadSetting(err.message) from err
            except RPCError as err:
                if err.status == RPCStatusCode.NOT_FOUND:  # e.g. `runs cancel|resume|explain` of an unknown run
                    raise NotFound(f"{err.message}; see `office runs list` for the runs there are") from err
                raise
            except DBAPIError as err:
                if re.search(r"no such table|UndefinedTable|relation .* does not exist", str(err)):
                    raise ServiceUnavailable(
                        f"the database {_shown_url(Settings.from_env().database_url)} has no office tables "
                        f"yet; run `office db upgrade`"
                    ) from err
                raise

    try:
        return asyncio.run(body())
    except ServiceUnavailable as err:
        line(str(err))
        raise typer.Exit(EXIT_UNAVAILABLE) from None
    except (BadSetting, NotFound) as err:
        line(str(err))
        raise typer.Exit(EXIT_USAGE) from None


class NotFound(Exception):
    """What the command names (a run) does not exist on the server."""


def line(message: str) -> None:
    """One error line on stderr, however narrow the terminal (rich would wrap it)."""
    from rich.markup import escape

    err_console.print(f"[red]error:[/] {escape(message)}", soft_wrap=True, highlight=False)
