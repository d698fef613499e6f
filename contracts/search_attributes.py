"""The project's custom search attributes; registered on the dev server at start (office dev, tests)."""

from temporalio.common import SearchAttributeKey

STATUS = SearchAttributeKey.for_keyword("OfficeStatus")
WORKSPACE = SearchAttributeKey.for_keyword("OfficeWorkspace")
AGENT = SearchAttributeKey.for_keyword("OfficeAgent")
PROVIDER = SearchAttributeKey.for_keyword("OfficeProvider")
REQUESTED_MODEL = SearchAttributeKey.for_keyword("OfficeRequestedModel")
EFFECTIVE_MODEL = SearchAttributeKey.for_keyword("OfficeEffectiveModel")
FALLBACK_COUNT = SearchAttributeKey.for_int("OfficeFallbackCount")
ERROR_CODE = SearchAttributeKey.for_keyword("OfficeErrorCode")

ALL = [STATUS, WORKSPACE, AGENT, PROVIDER, REQUESTED_MODEL, EFFECTIVE_MODEL, FALLBACK_COUNT, ERROR_CODE]


def cli_flags() -> list[str]:
    """`--search-attribute Name=Type` flags for `temporal server start-dev`."""
    kinds = {"KEYWORD": "Keyword", "INT": "Int"}
    return [f"--search-attribute={k.name}={kinds[k.indexed_value_type.name]}" for k in ALL]
