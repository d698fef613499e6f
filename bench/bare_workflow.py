"""A bare one-activity workflow with Temporal's default retry policy: the reference for throughput and for
the amplification arm "Temporal default retries". Kept free of I/O imports for the workflow sandbox."""

from datetime import timedelta

from temporalio import workflow

with workflow.unsafe.imports_passed_through():
    from pydantic import BaseModel


class ChatCall(BaseModel):
    url: str  # .../v1/chat/completions
    prompt: str
    client_retries: int = 0  # immediate retries inside one activity attempt (an HTTP client's own retries)
    stream: bool = False  # make the same streamed call the office executor makes


@workflow.defn
class BareChatWorkflow:
    @workflow.run
    async def run(self, call: ChatCall) -> str:
        reply: str = await workflow.execute_activity(
            "chat_once", call, result_type=str, start_to_close_timeout=timedelta(seconds=60)
        )
        return reply
