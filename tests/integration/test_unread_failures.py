"""`office unread-failures`: the failures no stage of the classifier read, across runs, for a person to review and
report as corpus lines."""

import json
from datetime import UTC, datetime, timedelta

import pytest

from office.simulator.config import InjectedFailure, SimProvider
from routing.classifier import FailureSignal, classify
from routing.run import RunStatus
from testkit.runs import run_to_end

from .helpers import office

pytestmark = pytest.mark.integration
WEIRD = "the flux capacitor is misaligned"


async def test_unread_failures_lists_only_what_no_stage_read_and_prints_them_as_corpus_lines(stack):
    since = (datetime.now(UTC) - timedelta(minutes=1)).isoformat()
    weird = InjectedFailure(status=599, kind="opaque", message=WEIRD, match_text="calibrate")
    refused = InjectedFailure(status=400, kind="content_policy", match_text="forbidden")
    ws, agent, p = await stack.workspace({"alpha": SimProvider(failures=[weird, refused])}, unreadable_failure_wait=0)
    unread = await run_to_end(stack, ws, agent, "calibrate the capacitor")
    assert unread.status is RunStatus.failed
    read = await run_to_end(stack, ws, agent, "something forbidden")  # a failure the rules read: not listed
    assert [a.error_code for a in read.attempts] == ["content_policy"]

    code, out, err = await office(stack, "unread-failures", "--json", "--since", since, "--workspace", ws)
    assert code == 0, err
    [row] = json.loads(out)
    assert (row["run_id"], row["provider"], row["decision"]) == (unread.run_id, p["alpha"], "fail")
    assert WEIRD in row["excerpt"] and row["catalogue"]

    code, out, err = await office(stack, "unread-failures", "--corpus", "--since", since, "--workspace", ws)
    assert code == 0, err
    [line] = [json.loads(raw) for raw in out.splitlines()]
    assert (line["codes"], line["decisions"], line["family"]) == ([], [], "")  # a person labels it
    assert unread.run_id in line["source"] and row["catalogue"] in line["source"]
    assert classify(FailureSignal.model_validate(line["signal"]), datetime.now(UTC)).code.value == "unknown"

    code, out, err = await office(stack, "unread-failures", "--since", "last tuesday")
    assert code == 2 and "--since 'last tuesday'" in err and "Traceback" not in err
