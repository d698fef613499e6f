"""One way to build a Temporal client: standard env config (TEMPORAL_ADDRESS, TEMPORAL_NAMESPACE, profiles),
the pydantic data converter, and the OpenTelemetry tracing interceptor."""

from temporalio.client import Client
from temporalio.contrib.opentelemetry import TracingInterceptor
from temporalio.contrib.pydantic import pydantic_data_converter
from temporalio.envconfig import ClientConfig


async def connect(address: str | None = None, namespace: str | None = None) -> Client:
    config = ClientConfig.load_client_connect_config()
    if address:
        config["target_host"] = address
    if namespace:
        config["namespace"] = namespace
    config.setdefault("target_host", "localhost:7233")
    return await Client.connect(**config, data_converter=pydantic_data_converter,
                                interceptors=[TracingInterceptor()])
