"""The data converter every client, worker and replayer uses: pydantic JSON, and input that does not validate
fails the workflow or activity at once with one line naming the fields (a foreign client's bad input must not
leave a workflow task retrying without end)."""

from typing import Any

import pydantic
from temporalio.api.common.v1 import Payload
from temporalio.contrib.pydantic import PydanticJSONPlainPayloadConverter
from temporalio.converter import (
    CompositePayloadConverter,
    DataConverter,
    DefaultPayloadConverter,
    JSONPlainPayloadConverter,
)
from temporalio.exceptions import ApplicationError

INVALID_INPUT = "InvalidInput"  # ApplicationError type of a payload that does not validate


def describe(err: pydantic.ValidationError) -> str:
    """`field.path: message` for each problem, on one line."""
    problems = [f"{'.'.join(str(p) for p in e['loc']) or '(value)'}: {e['msg']}" for e in err.errors()]
    return "; ".join(problems)


class ValidatingJSONConverter(PydanticJSONPlainPayloadConverter):
    def from_payload(self, payload: Payload, type_hint: type | None = None) -> Any:
        try:
            return super().from_payload(payload, type_hint)
        except pydantic.ValidationError as err:
            name = getattr(type_hint, "__name__", str(type_hint))
            raise ApplicationError(
                f"invalid {name}: {describe(err)}; fix these fields and start again",
                type=INVALID_INPUT,
                non_retryable=True,
            ) from None


class OfficePayloadConverter(CompositePayloadConverter):
    def __init__(self) -> None:
        json = ValidatingJSONConverter()
        super().__init__(
            *(
                json if isinstance(c, JSONPlainPayloadConverter) else c
                for c in DefaultPayloadConverter.default_encoding_payload_converters
            )
        )


DATA_CONVERTER = DataConverter(payload_converter_class=OfficePayloadConverter)
