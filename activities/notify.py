"""Posting a run's event to the workspace's webhooks, as Standard Webhooks (`webhook-id`, `webhook-timestamp`,
`webhook-signature`, signed by the `standardwebhooks` package).

What arrives through Temporal names a run, an event and an endpoint's index, nothing more: the URL is the one the
store holds at that index for the run's workspace, the secret is the worker's variable that endpoint names, and the
call must come from a notification workflow that the office run itself started (its parent, as the server records
it). Where the worker may post is bounded too (docs/security.md): the address the host resolves to is checked when
the connection is made (so a name that resolves elsewhere the second time gains nothing), the worker's own machine
and networks only when the worker allows them, link-local and metadata addresses never; no redirect is followed,
no proxy from the environment is used, and nothing of the answer but its status code is kept.
"""

import asyncio
import ipaddress
import json
import logging
import os
import socket
from collections import OrderedDict
from collections.abc import Iterable
from datetime import UTC, datetime
from typing import Any
from urllib.parse import quote

import httpcore
import httpx
from standardwebhooks import Webhook
from temporalio import activity
from temporalio.api.common.v1 import WorkflowExecution
from temporalio.api.workflowservice.v1 import DescribeWorkflowExecutionRequest, DescribeWorkflowExecutionResponse
from temporalio.exceptions import ApplicationError, ApplicationErrorCategory

from activities.bookkeeping import store_retrying
from activities.boundary import OFFICE_WORKFLOW, RUNS_KEPT
from activities.executors.base import CredentialRefused, read_credential
from activities.git.runner import dev_mode
from contracts.activities import Activity
from contracts.failures import refused
from contracts.notify import (
    NOTIFY_SETTING,
    NOTIFY_WORKFLOW,
    DeliveryOutcome,
    NotifyDelivery,
    NotifyRequest,
    NotifyTarget,
)
from contracts.search_attributes import WORKSPACE
from routing.config import WorkspaceConfig
from routing.notify import NotifyEndpoint, targets
from store.repository import Store

log = logging.getLogger(__name__)
ALLOW_PRIVATE_ENV = "OFFICE_NOTIFY_ALLOW_PRIVATE"  # 1: endpoints on the worker's own machine and networks
POST_TIMEOUT_S = 10.0
# Never, whatever the worker allows: cloud metadata services (link-local, and AWS's IPv6 one) and non-addresses.
METADATA = {ipaddress.ip_address("fd00:ec2::254")}


class AddressRefused(Exception):
    pass


def allow_private() -> bool:
    """OFFICE_NOTIFY_ALLOW_PRIVATE=1, or a worker started for development (its receivers are on 127.0.0.1)."""
    return dev_mode() or os.environ.get(ALLOW_PRIVATE_ENV, "").strip().lower() in ("1", "true", "on", "yes")


def address_problem(address: str, private_allowed: bool) -> str | None:
    """Why the worker may not post to `address`, or None."""
    ip = ipaddress.ip_address(address.split("%", 1)[0])
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        ip = ip.ipv4_mapped
    if ip.is_link_local or ip in METADATA or ip.is_multicast or ip.is_unspecified or ip.is_reserved:
        return f"{ip} is a link-local, metadata or reserved address, which a webhook never reaches"
    if ip.is_global:
        return None
    if private_allowed and (ip.is_loopback or ip.is_private):
        return None
    return (
        f"{ip} is an address of the worker's own machine or networks; set {ALLOW_PRIVATE_ENV}=1 on the workers to "
        f"allow such endpoints"
    )


class GuardedBackend(httpcore.AsyncNetworkBackend):
    """Resolves the host itself, refuses it unless every address it resolves to is allowed, and connects to the
    address it checked (TLS still verifies the host name)."""

    def __init__(self, inner: httpcore.AsyncNetworkBackend) -> None:
        self.inner = inner

    async def connect_tcp(
        self,
        host: str,
        port: int,
        timeout: float | None = None,  # noqa: ASYNC109 (httpcore's interface)
        local_address: str | None = None,
        socket_options: Iterable[Any] | None = None,
    ) -> httpcore.AsyncNetworkStream:
        infos = await asyncio.get_running_loop().getaddrinfo(host, port, type=socket.SOCK_STREAM)
        addresses = [str(info[4][0]) for info in infos]
        private_allowed = allow_private()
        for address in addresses:
            problem = address_problem(address, private_allowed)
            if problem:
                raise AddressRefused(problem)
        if not addresses:
            raise httpcore.ConnectError(f"{host} resolves to no address")
        return await self.inner.connect_tcp(addresses[0], port, timeout, local_address, socket_options)

    async def connect_unix_socket(
        self,
        path: str,
        timeout: float | None = None,  # noqa: ASYNC109 (httpcore's interface)
        socket_options: Iterable[Any] | None = None,
    ) -> httpcore.AsyncNetworkStream:
        raise AddressRefused("a webhook is never posted to a socket on the worker")

    async def sleep(self, seconds: float) -> None:
        await self.inner.sleep(seconds)


def guarded_client() -> httpx.AsyncClient:
    transport = httpx.AsyncHTTPTransport(retries=0)
    pool = transport._pool  # httpx gives no other way to choose the pool's network backend
    pool._network_backend = GuardedBackend(pool._network_backend)
    return httpx.AsyncClient(transport=transport, trust_env=False, follow_redirects=False, timeout=POST_TIMEOUT_S)


def run_link(ui_url: str, namespace: str, run_id: str) -> str:
    return f"{ui_url.rstrip('/')}/namespaces/{quote(namespace, safe='')}/workflows/{quote(run_id, safe='')}"


def setting_failure(message: str) -> ApplicationError:
    """The endpoint cannot be posted to as configured: no retry helps, the endpoint is dead for this event."""
    return ApplicationError(message, type=NOTIFY_SETTING, non_retryable=True)


def retry_later(message: str) -> ApplicationError:
    """A failed attempt Temporal retries (expected: logged at debug; a dead endpoint is logged once, as such)."""
    return ApplicationError(message, category=ApplicationErrorCategory.BENIGN)


class NotifyActivities:
    def __init__(self, store: Store, task_queue: str, ui_url: str, http: httpx.AsyncClient | None = None) -> None:
        self.store, self.task_queue, self.ui_url = store, task_queue, ui_url
        self.http = http or guarded_client()
        self._verified: OrderedDict[str, str] = OrderedDict()  # notification workflow run id -> its office run

    async def close(self) -> None:
        await self.http.aclose()

    @activity.defn(name=Activity.notify_targets)
    async def notify_targets(self, req: NotifyRequest) -> list[NotifyTarget]:
        ws = await self._workspace(req)
        if ws is None:
            return []
        return [
            NotifyTarget(index=i, label=e.label(i), max_attempts=e.max_attempts, first_retry_s=e.first_retry_s)
            for i in targets(ws.notify, req.event)
            for e in [ws.notify[i]]
        ]

    @activity.defn(name=Activity.deliver_notification)
    async def deliver_notification(self, delivery: NotifyDelivery) -> DeliveryOutcome:
        req, target = delivery.request, delivery.target
        ws = await self._workspace(req)
        endpoint = ws.notify[target.index] if ws is not None and target.index < len(ws.notify) else None
        if endpoint is None or endpoint.label(target.index) != target.label or req.event not in endpoint.events:
            return DeliveryOutcome(label=target.label, state="skipped", detail="the workspace no longer sends it here")
        field = f"notify.{target.index}"
        webhook = self._signer(endpoint, field)
        body = json.dumps(await self._payload(req, endpoint), separators=(",", ":"), ensure_ascii=False)
        now = datetime.now(UTC)
        headers = {
            "webhook-id": req.message_id,
            "webhook-timestamp": str(int(now.timestamp())),
            "webhook-signature": webhook.sign(req.message_id, now, body),
            "content-type": "application/json",
            "user-agent": "office-notify/1",
        }
        attempt = f"attempt {activity.info().attempt} of {target.max_attempts}"
        try:
            response = await self.http.post(endpoint.url, content=body.encode(), headers=headers)
        except AddressRefused as err:
            raise setting_failure(f"{field}.url: {err}") from None
        except httpx.HTTPError as err:
            raise retry_later(f"could not be reached ({type(err).__name__}, {attempt})") from None
        if not response.is_success:  # a redirect too: it is not followed
            raise retry_later(f"answered HTTP {response.status_code} ({attempt})")
        log.info("notify: run %s's %s event delivered to %s", req.run_id, req.event, target.label)
        return DeliveryOutcome(label=target.label, state="delivered", detail=f"HTTP {response.status_code}")

    def _signer(self, endpoint: NotifyEndpoint, field: str) -> Webhook:
        try:
            secret = read_credential(endpoint.secret_env, f"{field}.secret_env")
        except CredentialRefused as err:
            raise setting_failure(str(err)) from None
        if not secret:  # another worker may have it: retried like an unreachable endpoint
            raise retry_later(f"{field}.secret_env: {endpoint.secret_env} is not set on this worker; set it")
        try:
            return Webhook(secret)
        except Exception:  # never repeats the value
            raise setting_failure(
                f"{field}.secret_env: {endpoint.secret_env} does not hold a Standard Webhooks secret "
                f"(whsec_ followed by base64, as the receiver issues it)"
            ) from None

    async def _payload(self, req: NotifyRequest, endpoint: NotifyEndpoint) -> dict[str, Any]:
        data: dict[str, Any] = {
            "run_id": req.run_id,
            "workspace": req.workspace,
            "agent": req.agent,
            "event": req.event,
            "status": req.status,
            "message": req.message,
            "error_code": req.error_code,
            "park_reason": req.park_reason,
            "url": run_link(self.ui_url, activity.info().workflow_namespace or "default", req.run_id),
        }
        if endpoint.include_prompt:
            rows = await store_retrying(lambda: self.store.read_transcript(req.run_id, 1), "reading the prompt")
            data["prompt"] = next((r.content for r in rows if r.role == "user"), None)
        return {"type": f"run.{req.event}", "timestamp": req.at.isoformat(), "data": data}

    async def _workspace(self, req: NotifyRequest) -> WorkspaceConfig | None:
        await self._check_caller(req)
        return await store_retrying(lambda: self.store.get_workspace(req.workspace), f"reading {req.workspace}")

    async def _check_caller(self, req: NotifyRequest) -> None:
        """Refuses unless the scheduling workflow is a notification workflow on this office's queue whose parent
        is the office run `req.run_id` of workspace `req.workspace`, as the server records them."""
        info = activity.info()
        if info.workflow_type != NOTIFY_WORKFLOW:
            raise refused(f"this activity is scheduled only by {NOTIFY_WORKFLOW}")
        run = info.workflow_run_id or ""
        if self._verified.get(run) == f"{req.run_id}/{req.workspace}":
            return
        own = await self._describe(info.workflow_id or "", run)
        parent = own.workflow_execution_info.parent_execution
        if own.execution_config.task_queue.name != self.task_queue or parent.workflow_id != req.run_id:
            raise refused(f"the scheduling workflow was not started by office run {req.run_id} on {self.task_queue}")
        office = await self._describe(parent.workflow_id, parent.run_id)
        fields = office.workflow_execution_info.search_attributes.indexed_fields
        payload = fields[WORKSPACE.name].data.decode() if WORKSPACE.name in fields else ""
        if (
            office.workflow_execution_info.type.name != OFFICE_WORKFLOW
            or office.execution_config.task_queue.name != self.task_queue
            or json.loads(payload or '""') != req.workspace
        ):
            raise refused(f"{req.run_id} is not an office run of workspace {req.workspace!r} on {self.task_queue}")
        self._verified[run] = f"{req.run_id}/{req.workspace}"
        while len(self._verified) > RUNS_KEPT:
            self._verified.popitem(last=False)

    async def _describe(self, workflow_id: str, run_id: str) -> DescribeWorkflowExecutionResponse:
        return await activity.client().workflow_service.describe_workflow_execution(
            DescribeWorkflowExecutionRequest(
                namespace=activity.info().workflow_namespace or "",
                execution=WorkflowExecution(workflow_id=workflow_id, run_id=run_id),
            )
        )
