"""History forwarding: a snapshot of one run, normalised for the target, with every normalisation recorded."""

from routing.transcript import Entry, forward


def entries():
    return [
        Entry(seq=1, role="user", content="anchor: the vault code is 4471"),
        Entry(seq=2, role="reasoning", content="<signed thinking>", provider="anthropic"),
        Entry(seq=3, role="assistant", content="calling toolu_01AbC to look", provider="anthropic"),
        Entry(seq=4, role="tool", content="toolu_01AbC returned 4471", provider="anthropic"),
        Entry(seq=5, role="user", content="what was the code?"),
    ]


def test_same_provider_gets_everything_unchanged():
    out = forward(entries(), "anthropic")
    assert [m["content"] for m in out.messages] == [e.content for e in entries()]
    assert out.normalisations == []


def test_fallback_gets_normalised_history_and_a_continuation_note():
    out = forward(entries(), "openai")
    contents = [m["content"] for m in out.messages]
    assert "<signed thinking>" not in contents
    assert "calling call_1 to look" in contents and "call_1 returned 4471" in contents
    assert out.messages[-1] == {"role": "user", "content": "what was the code?"}
    assert out.messages[-2]["role"] == "system" and "anthropic" in out.messages[-2]["content"]
    assert out.normalisations == [
        "seq 2: dropped a reasoning block from anthropic",
        "seq 3: remapped tool-call ids from anthropic",
        "seq 4: remapped tool-call ids from anthropic",
        "added a continuation note (history from anthropic)",
    ]
    assert {"role": "user", "content": "anchor: the vault code is 4471"} in out.messages


def test_stateless_mode_sends_only_the_newest_user_message():
    out = forward(entries(), "openai", full_history=False)
    assert out.messages == [{"role": "user", "content": "what was the code?"}]
