"""The project's custom search attributes; registered on the dev server at start (office dev, tests)."""

from typing import Any

from temporalio.common import SearchAttributeKey, SearchAttributeUpdate

from routing.run import RunView

STATUS = SearchAttributeKey.for_keyword("OfficeStatus")
WORKSPACE = SearchAttributeKey.for_keyword("OfficeWorkspace")
AGENT = SearchAttributeKey.for_keyword("OfficeAgent")
PROVIDER = SearchAttributeKey.for_keyword("OfficeProvider")
REQUESTED_MODEL = SearchAttributeKey.for_keyword("OfficeRequestedModel")
EFFECTIVE_MODEL = SearchAttributeKey.for_keyword("OfficeEffectiveModel")
FALLBACK_COUNT = SearchAttributeKey.for_int("OfficeFallbackCount")
ERROR_CODE = SearchAttributeKey.for_keyword("OfficeErrorCode")
CONTINUES = SearchAttributeKey.for_keyword("OfficeContinues")  # the ended run a retry or continuation continues
AWAITING = SearchAttributeKey.for_keyword("OfficeAwaiting")  # "permission" while a question waits for a person
# Attributes removed again when the view's value goes back to None (the others keep their last value).
CLEARED_WHEN_NONE = frozenset({AWAITING.name})

ALL: list[SearchAttributeKey[Any]] = [
    STATUS,
    WORKSPACE,
    AGENT,
    PROVIDER,
    REQUESTED_MODEL,
    EFFECTIVE_MODEL,
    FALLBACK_COUNT,
    ERROR_CODE,
    CONTINUES,
    AWAITING,
]


def cli_flags() -> list[str]:
    """`--search-attribute Name=Type` flags for `temporal server start-dev`."""
    kinds = {"KEYWORD": "Keyword", "INT": "Int"}
    return [f"--search-attribute={k.name}={kinds[k.indexed_value_type.name]}" for k in ALL]


def values_of(view: RunView) -> dict[str, object]:
    return {
        STATUS.name: view.status.value,
        WORKSPACE.name: view.workspace,
        AGENT.name: view.agent,
        PROVIDER.name: view.provider,
        REQUESTED_MODEL.name: view.requested_model,
        EFFECTIVE_MODEL.name: view.effective_model,
        FALLBACK_COUNT.name: view.fallback_count,
        ERROR_CODE.name: view.error_code,
        CONTINUES.name: view.continues.run_id if view.continues else None,
        AWAITING.name: view.awaiting,
    }


def changed(view: RunView, published: dict[str, object]) -> list[SearchAttributeUpdate[Any]]:
    """The updates that bring the run's indexed attributes to `view`; `published` (what the run already set)
    is brought along, so each change costs one history event and an unchanged value none."""
    wanted = values_of(view)
    updates: list[SearchAttributeUpdate[Any]] = []
    for key in ALL:
        value = wanted[key.name]
        if value is None and key.name in CLEARED_WHEN_NONE and published.get(key.name) is not None:
            published[key.name] = None
            updates.append(key.value_unset())
            continue
        if value is None or published.get(key.name) == value:
            continue
        published[key.name] = value
        updates.append(key.value_set(value))
    return updates
