"""One way to build a Temporal client: standard env config (TEMPORAL_ADDRESS, TEMPORAL_NAMESPACE, profiles),
the project's data converter (pydantic, input validated at the boundary), and the OpenTelemetry tracing interceptor."""

import dataclasses
import logging

from temporalio.client import Client
from temporalio.contrib.opentelemetry import TracingInterceptor
from temporalio.envconfig import ClientConfig
from temporalio.runtime import LogForwardingConfig, LoggingConfig, Runtime, TelemetryConfig, TelemetryFilter

from contracts.converter import DATA_CONVERTER
from office.codec import codec_from_env

_runtime: Runtime | None = None


def runtime() -> Runtime:
    """One runtime per process whose core logs go through Python logging (stderr), never onto stdout,
    so `--json` output stays machine-readable."""
    global _runtime
    if _runtime is None:
        forwarding = LogForwardingConfig(logger=logging.getLogger("temporalio.core"))
        _runtime = Runtime(
            telemetry=TelemetryConfig(
                logging=LoggingConfig(
                    filter=TelemetryFilter(core_level="WARN", other_level="ERROR"), forwarding=forwarding
                )
            )
        )
    return _runtime


async def connect(address: str | None = None, namespace: str | None = None) -> Client:
    config = ClientConfig.load_client_connect_config()
    if address:
        config["target_host"] = address
    if namespace:
        config["namespace"] = namespace
    config.setdefault("target_host", "localhost:7233")
    codec = codec_from_env()  # payload encryption when OFFICE_CODEC_KEYS_FILE names a key file
    converter = dataclasses.replace(DATA_CONVERTER, payload_codec=codec) if codec else DATA_CONVERTER
    return await Client.connect(
        **config, data_converter=converter, interceptors=[TracingInterceptor()], runtime=runtime()
    )
