"""The Temporal UI shows an encrypted run's prompt only through the codec server: the browser asks it to decode."""

import uuid

from office.asgi import free_port
from office.codec import KEYS_FILE_ENV, codec_from_env, ensure_key_file
from office.codec_server import CodecServer
from office.simulator.config import SimProvider
from office.temporal_client import connect
from office.temporal_server import TemporalDevServer
from office.worker_runtime import office_worker
from routing.run import RunStatus
from testkit.runs import run_to_end
from tests.browser.test_temporal_ui import _chromium


async def test_the_ui_decodes_an_encrypted_prompt_through_the_codec_server(stack, tmp_path, monkeypatch):
    monkeypatch.setenv(KEYS_FILE_ENV, str(ensure_key_file(tmp_path / "keys")))
    codec = codec_from_env()
    assert codec is not None
    codec_port = free_port()
    temporal = TemporalDevServer(codec_endpoint=f"http://127.0.0.1:{codec_port}")
    server = CodecServer(codec, ui_origins=[temporal.ui_url], port=codec_port)
    await server.start()
    await temporal.start()
    canary = f"canary-{uuid.uuid4().hex[:12]}"
    try:
        client = await connect(address=temporal.address, namespace="default")
        ws, agent, _ = await stack.workspace({"a": SimProvider()})
        queue = f"ui-codec-{uuid.uuid4().hex[:6]}"
        async with office_worker(client, stack.database_url, queue):
            view = await run_to_end(stack, ws, agent, f"Summarise {canary}", task_queue=queue, client=client)
        assert view.status is RunStatus.completed
        dom = await _chromium("--dump-dom", f"{temporal.ui_url}/namespaces/default/workflows/{view.run_id}")
        assert canary in dom  # decoded in the browser by the codec server; the server itself holds ciphertext
    finally:
        temporal.stop()
        await server.stop()
