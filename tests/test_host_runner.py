"""HookRunner: OpenClaw's ordering, concurrency, merge, error and timeout semantics."""

from __future__ import annotations

import asyncio
import logging
import threading
from collections.abc import Callable
from typing import Any

import pytest

from knowledge_engine import observe
from knowledge_engine.host import (
    AgentContext,
    BeforePromptBuildEvent,
    BeforePromptBuildResult,
    HookError,
    HookPayloadError,
    HookRunner,
    HookTimeoutError,
    MessageContext,
    MessageReceivedEvent,
    PluginApi,
)

SECRET = "TOP-SECRET-PAYLOAD-4711"
RECEIVED = {"from": "telegram:1", "content": SECRET, "messageId": "m1", "sessionKey": "agent:main:main"}
RECEIVED_CTX = {"channelId": "telegram", "agentId": "main", "workspaceDir": "/tmp/ws"}
PROMPT = {"prompt": SECRET, "messages": [{"role": "user", "content": SECRET}], "currentUserMessage": SECRET}
AGENT_CTX = {"agentId": "main", "sessionKey": "agent:main:main", "trigger": "user", "runId": "r1"}


def run(coro: Any) -> Any:
    return asyncio.run(coro)


def returning(value: Any) -> Callable[[Any, Any], Any]:
    async def handler(event: Any, ctx: Any) -> Any:
        return value

    return handler


def hook_errors(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.levelno >= logging.ERROR]


# --------------------------------------------------------------------------- ordering


def test_modifying_handlers_run_by_priority_higher_first_stable_for_ties() -> None:
    order: list[str] = []

    def recorder(name: str) -> Callable[[Any, Any], Any]:
        async def handler(event: Any, ctx: Any) -> None:
            order.append(name)

        return handler

    a, b = PluginApi("a"), PluginApi("b")
    a.on("before_prompt_build", recorder("a-low"), priority=-1)
    a.on("before_prompt_build", recorder("a-tie-1"), priority=10)
    b.on("before_prompt_build", recorder("b-high"), priority=100)
    b.on("before_prompt_build", recorder("b-tie-2"), priority=10)
    a.on("before_prompt_build", recorder("a-default"))
    run(HookRunner(a.registrations + b.registrations).run_before_prompt_build(PROMPT, AGENT_CTX))
    assert order == ["b-high", "a-tie-1", "b-tie-2", "a-default", "a-low"]


def test_void_handlers_are_launched_in_priority_order() -> None:
    started: list[int] = []

    def recorder(p: int) -> Callable[[Any, Any], Any]:
        async def handler(event: Any, ctx: Any) -> None:
            started.append(p)  # before the first await: this is launch order
            await asyncio.sleep(0)

        return handler

    api = PluginApi("p")
    for p in (1, 50, 7, 100):
        api.on("message_received", recorder(p), priority=p)
    run(HookRunner(api.registrations).run_message_received(RECEIVED, RECEIVED_CTX))
    assert started == [100, 50, 7, 1]


# --------------------------------------------------------------------------- concurrency


def test_void_handlers_run_concurrently() -> None:
    """Each handler waits for an event only the other sets: sequential execution would time out."""
    api = PluginApi("p")
    box: dict[str, asyncio.Event] = {}

    async def first(event: Any, ctx: Any) -> None:
        box["b"].set()
        await box["a"].wait()

    async def second(event: Any, ctx: Any) -> None:
        box["a"].set()
        await box["b"].wait()

    api.on("message_received", first, priority=2, timeout_ms=5000)
    api.on("message_received", second, priority=1, timeout_ms=5000)
    runner = HookRunner(api.registrations)

    async def main() -> None:
        box.update(a=asyncio.Event(), b=asyncio.Event())
        await runner.run_message_received(RECEIVED, RECEIVED_CTX)

    run(main())
    outcomes = [h.outcome for h in runner.metrics[-1].handlers]
    assert outcomes == ["ok", "ok"]


def test_modifying_handlers_run_sequentially() -> None:
    trace: list[str] = []

    def step(name: str) -> Callable[[Any, Any], Any]:
        async def handler(event: Any, ctx: Any) -> dict[str, str]:
            trace.append(f"{name}-start")
            await asyncio.sleep(0.01)
            trace.append(f"{name}-end")
            return {"prependContext": name}

        return handler

    api = PluginApi("p")
    api.on("before_prompt_build", step("A"), priority=2)
    api.on("before_prompt_build", step("B"), priority=1)
    result = run(HookRunner(api.registrations).run_before_prompt_build(PROMPT, AGENT_CTX))
    assert trace == ["A-start", "A-end", "B-start", "B-end"]
    assert result == {"prependContext": "A\n\nB"}


# --------------------------------------------------------------------------- merging


def test_before_prompt_build_merge_rules(caplog: pytest.LogCaptureFixture) -> None:
    api = PluginApi("p")
    api.on(
        "before_prompt_build",
        returning(
            {
                "prependContext": "P1",
                "appendContext": "A1",
                "prependSystemContext": "PS1",
                "systemContext": "unknown key",
                "modelOverride": "not a prompt-build field",
            }
        ),
        priority=30,
    )
    api.on("before_prompt_build", returning(None), priority=25)
    api.on(
        "before_prompt_build",
        returning({"systemPrompt": "SP-first", "appendSystemContext": "AS2"}),
        priority=20,
    )
    api.on(
        "before_prompt_build",
        returning(
            BeforePromptBuildResult(
                prepend_context="P3", append_system_context="AS3", system_prompt="SP-later"
            )
        ),
        priority=10,
    )
    api.on("before_prompt_build", returning({"prepend_context": "P4", "appendContext": ""}), priority=5)
    result = run(HookRunner(api.registrations).run_before_prompt_build(PROMPT, AGENT_CTX))
    assert result == {
        "prependContext": "P1\n\nP3\n\nP4",
        "appendContext": "A1",
        "prependSystemContext": "PS1",
        "appendSystemContext": "AS2\n\nAS3",
        "systemPrompt": "SP-first",
    }
    unknown = [r.getMessage() for r in caplog.records if "unknown keys" in r.getMessage()]
    assert unknown == [
        "[hooks] before_prompt_build handler from p returned unknown keys (ignored): "
        "modelOverride, systemContext"
    ]
    assert all(r.levelno == logging.DEBUG for r in caplog.records if "unknown keys" in r.getMessage())


def test_message_sending_keeps_the_first_defined_content() -> None:
    api = PluginApi("p")
    api.on("message_sending", returning(None), priority=9)
    api.on("message_sending", returning({"content": "high"}), priority=5)
    api.on("message_sending", returning({"content": "low", "cancel": True}), priority=1)
    runner = HookRunner(api.registrations)
    result = run(runner.run_message_sending({"to": "x", "content": "c"}, {"channelId": "w"}))
    assert result == {"content": "high", "cancel": True}


def test_removed_hook_names_point_to_their_replacement() -> None:
    api = PluginApi("p")
    with pytest.raises(ValueError, match=r"no longer exists.*before_prompt_build"):
        api.on("before_agent_start", returning(None))


def test_no_handlers_or_no_results() -> None:
    empty = HookRunner([])
    assert run(empty.run_before_prompt_build(PROMPT, AGENT_CTX)) == {}
    assert run(empty.run("before_prompt_build", PROMPT, AGENT_CTX)) is None
    assert run(empty.run("message_received", RECEIVED, RECEIVED_CTX)) is None
    api = PluginApi("p")
    api.on("before_prompt_build", returning(None))
    runner = HookRunner(api.registrations)
    assert run(runner.run("before_prompt_build", PROMPT, AGENT_CTX)) is None
    assert run(runner.run_before_prompt_build(PROMPT, AGENT_CTX)) == {}


def test_void_hook_return_values_are_ignored() -> None:
    api = PluginApi("p")
    api.on("message_received", returning({"prependContext": "ignored"}))
    assert run(HookRunner(api.registrations).run("message_received", RECEIVED, RECEIVED_CTX)) is None


def test_invalid_results_are_failures_and_other_results_kept(caplog: pytest.LogCaptureFixture) -> None:
    api = PluginApi("p")
    api.on("before_prompt_build", returning("just a string"), priority=3)
    api.on("before_prompt_build", returning({"prependContext": 5}), priority=2)
    api.on("before_prompt_build", returning({"prependContext": "good"}), priority=1)
    runner = HookRunner(api.registrations)
    assert run(runner.run_before_prompt_build(PROMPT, AGENT_CTX)) == {"prependContext": "good"}
    assert hook_errors(caplog) == [
        "[hooks] before_prompt_build handler from p failed: result must be a mapping, got str",
        "[hooks] before_prompt_build handler from p failed: invalid result: prependContext: string_type",
    ]
    assert [h.outcome for h in runner.metrics[-1].handlers] == ["failed", "failed", "ok"]


# --------------------------------------------------------------------------- errors


def test_errors_are_caught_logged_without_content_and_skipped(caplog: pytest.LogCaptureFixture) -> None:
    ran: list[str] = []

    async def boom(event: MessageReceivedEvent, ctx: Any) -> None:
        raise ValueError(f"cannot parse {event.content_text}")

    async def fine(event: Any, ctx: Any) -> None:
        ran.append("fine")

    api = PluginApi("knowledge-engine")
    api.on("message_received", boom, priority=10)
    api.on("message_received", fine, priority=1)
    runner = HookRunner(api.registrations)
    before = observe.counters.get("hooks.message_received.failed")
    assert run(runner.run_message_received(RECEIVED, RECEIVED_CTX)) is None
    assert ran == ["fine"]
    assert hook_errors(caplog) == [
        "[hooks] message_received handler from knowledge-engine failed: ValueError"
    ]
    assert SECRET not in caplog.text
    assert observe.counters.get("hooks.message_received.failed") == before + 1
    assert runner.stats()["message_received"] == {"runs": 1, "failed": 1, "ok": 1}
    metric = runner.metrics[-1].handlers[0]
    assert (metric.outcome, metric.error_type, metric.plugin_id) == (
        "failed",
        "ValueError",
        "knowledge-engine",
    )


def test_modifying_error_skips_only_that_handler(caplog: pytest.LogCaptureFixture) -> None:
    async def boom(event: Any, ctx: Any) -> None:
        raise KeyError(SECRET)

    api = PluginApi("p")
    api.on("before_prompt_build", returning({"prependContext": "one"}), priority=3)
    api.on("before_prompt_build", boom, priority=2)
    api.on("before_prompt_build", returning({"prependContext": "two"}), priority=1)
    assert run(HookRunner(api.registrations).run_before_prompt_build(PROMPT, AGENT_CTX)) == {
        "prependContext": "one\n\ntwo"
    }
    assert hook_errors(caplog) == ["[hooks] before_prompt_build handler from p failed: KeyError"]
    assert SECRET not in caplog.text


def test_catch_errors_false_raises_for_void_hooks_after_all_handlers_ran() -> None:
    ran: list[str] = []

    async def boom(event: Any, ctx: Any) -> None:
        raise RuntimeError("bad")

    async def slow_ok(event: Any, ctx: Any) -> None:
        await asyncio.sleep(0.01)
        ran.append("ok")

    api = PluginApi("p")
    api.on("session_start", boom, priority=5)
    api.on("session_start", slow_ok, priority=1)
    runner = HookRunner(api.registrations, catch_errors=False)
    with pytest.raises(
        HookError, match=r"^\[hooks\] session_start handler from p failed: RuntimeError$"
    ) as err:
        run(runner.run_session_start({"sessionId": "s1"}, {"agentId": "main"}))
    assert isinstance(err.value.__cause__, RuntimeError)
    assert (err.value.hook_name, err.value.plugin_id) == ("session_start", "p")
    assert ran == ["ok"]
    assert runner.metrics[-1].count("failed") == 1


def test_catch_errors_false_stops_modifying_hooks_at_the_failure() -> None:
    ran: list[str] = []

    async def boom(event: Any, ctx: Any) -> None:
        raise RuntimeError("bad")

    async def later(event: Any, ctx: Any) -> None:
        ran.append("later")

    api = PluginApi("p")
    api.on("before_prompt_build", boom, priority=5)
    api.on("before_prompt_build", later, priority=1)
    with pytest.raises(HookError):
        run(HookRunner(api.registrations, catch_errors=False).run_before_prompt_build(PROMPT, AGENT_CTX))
    assert ran == []


# --------------------------------------------------------------------------- timeouts


def test_timeout_discards_a_late_result_and_keeps_the_others(caplog: pytest.LogCaptureFixture) -> None:
    finished: list[str] = []
    gate: dict[str, asyncio.Event] = {}

    async def late(event: Any, ctx: Any) -> dict[str, str]:
        await gate["open"].wait()
        finished.append("late")
        return {"prependContext": "LATE", "systemPrompt": "LATE"}

    api = PluginApi("slow-plugin")
    api.on("before_prompt_build", late, priority=10, timeout_ms=50)
    api.on("before_prompt_build", returning({"prependContext": "fast"}), priority=1)
    runner = HookRunner(api.registrations)

    async def main() -> dict[str, Any]:
        gate["open"] = asyncio.Event()
        result = await runner.run_before_prompt_build(PROMPT, AGENT_CTX)
        assert runner.late_pending == 1  # not cancelled: still running, as on the host
        gate["open"].set()
        assert await runner.wait_for_late(5) == 0
        return result

    result = run(main())
    assert result == {"prependContext": "fast"}
    assert finished == ["late"]
    assert hook_errors(caplog) == [
        "[hooks] before_prompt_build handler from slow-plugin failed: timed out after 50ms"
    ]
    assert any("late result discarded" in r.getMessage() for r in caplog.records)
    first = runner.metrics[-1].handlers[0]
    assert (first.outcome, first.error_type) == ("timed_out", "HookTimeoutError")
    assert runner.stats()["before_prompt_build"]["timed_out"] == 1


def test_void_timeout_does_not_wait_for_the_slow_handler() -> None:
    gate: dict[str, asyncio.Event] = {}

    async def hang(event: Any, ctx: Any) -> None:
        await gate["never"].wait()

    api = PluginApi("p")
    api.on("gateway_stop", hang)
    api.on("gateway_stop", returning(None))
    runner = HookRunner(api.registrations, timeouts={"gateway_stop": 50})

    async def main() -> None:
        gate["never"] = asyncio.Event()
        await runner.run_gateway_stop({"reason": "shutdown"}, {"workspaceDir": "/w"})

    run(main())
    assert [h.outcome for h in runner.metrics[-1].handlers] == ["timed_out", "ok"]


def test_timeout_raises_when_errors_are_not_caught() -> None:
    async def slow(event: Any, ctx: Any) -> None:
        await asyncio.sleep(10)

    api = PluginApi("p")
    api.on("agent_end", slow, timeout_ms=50)
    with pytest.raises(HookError, match="timed out after 50ms") as err:
        run(
            HookRunner(api.registrations, catch_errors=False).run_agent_end({"messages": [], "success": True})
        )
    assert isinstance(err.value.__cause__, HookTimeoutError)


def test_timeout_precedence() -> None:
    api = PluginApi("p")
    bpb = api.on("before_prompt_build", returning(None), timeout_ms=1234)
    mr = api.on("message_received", returning(None))
    gs = api.on("gateway_stop", returning(None))
    ae = api.on("agent_end", returning(None), timeout_ms=777)
    defaults = HookRunner(api.registrations)
    assert [defaults.timeout_for(r) for r in (bpb, mr, gs, ae)] == [1234, None, 5000, 777]
    operator = HookRunner(api.registrations, timeouts={"before_prompt_build": 99, "*": 4000})
    assert [operator.timeout_for(r) for r in (bpb, mr, gs, ae)] == [99, 4000, 4000, 4000]
    plain = PluginApi("q")
    assert HookRunner([]).timeout_for(plain.on("before_prompt_build", returning(None))) == 15000
    assert HookRunner([]).timeout_for(plain.on("agent_end", returning(None))) == 30000


@pytest.mark.parametrize(
    ("timeouts", "message"),
    [
        ({"gateway_stopp": 10}, "did you mean 'gateway_stop'"),
        ({"gateway_stop": 0}, "positive integer"),
        ({"*": 700_000}, "positive integer"),
    ],
)
def test_bad_operator_timeouts_are_rejected(timeouts: dict[str, int], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        HookRunner([], timeouts=timeouts)


# --------------------------------------------------------------------------- payloads


def test_handlers_receive_typed_models_parsed_from_host_json() -> None:
    seen: dict[str, Any] = {}

    async def on_received(event: MessageReceivedEvent, ctx: MessageContext) -> None:
        seen["received"] = (event, ctx)

    async def on_prompt(event: BeforePromptBuildEvent, ctx: AgentContext) -> None:
        seen["prompt"] = (event, ctx)

    api = PluginApi("p")
    api.on("message_received", on_received)
    api.on("before_prompt_build", on_prompt)
    runner = HookRunner(api.registrations)
    run(
        runner.run_message_received(
            {
                "from": "u1",
                "content": [{"type": "text", "text": "hello"}],
                "timestamp": "2026-01-01T00:00:00Z",
                "messageId": "m1",
                "sessionKey": "k1",
                "newHostField": True,
            },
            {"channelId": "webchat", "agentId": "a1", "workspaceDir": "/w/a1"},
        )
    )
    event, ctx = seen["received"]
    assert isinstance(event, MessageReceivedEvent) and isinstance(ctx, MessageContext)
    assert (event.from_, event.content_text, event.message_id, event.session_key) == (
        "u1",
        "hello",
        "m1",
        "k1",
    )
    assert event.model_extra == {"newHostField": True}
    assert (ctx.channel_id, ctx.agent_id, ctx.workspace_dir) == ("webchat", "a1", "/w/a1")

    model = BeforePromptBuildEvent(prompt="p", current_user_message="")
    run(runner.run_before_prompt_build(model, AgentContext(agent_id="a1")))
    assert seen["prompt"][0] is model  # a model of the right type is passed through unchanged
    assert seen["prompt"][1].agent_id == "a1"


def test_invalid_payload_is_a_logged_counted_skip(caplog: pytest.LogCaptureFixture) -> None:
    called: list[int] = []

    async def handler(event: Any, ctx: Any) -> None:
        called.append(1)

    api = PluginApi("p")
    api.on("message_received", handler)
    runner = HookRunner(api.registrations)
    before = observe.counters.get("hooks.message_received.payload_invalid")
    assert run(runner.run_message_received({"from": [SECRET], "timestamp": 1}, RECEIVED_CTX)) is None
    assert called == []
    assert hook_errors(caplog) == [
        "[hooks] message_received payload rejected: invalid message_received event: "
        "content: missing; from: string_type"
    ]
    assert SECRET not in caplog.text
    assert observe.counters.get("hooks.message_received.payload_invalid") == before + 1


def test_invalid_payload_raises_without_catch_errors() -> None:
    api = PluginApi("p")
    api.on("session_start", returning(None))
    runner = HookRunner(api.registrations, catch_errors=False)
    with pytest.raises(HookPayloadError, match="invalid session_start event: sessionId: missing"):
        run(runner.run_session_start({}, {}))
    with pytest.raises(HookPayloadError, match="session_start ctx must be a mapping, got list"):
        run(runner.run_session_start({"sessionId": "s"}, [1, 2]))  # type: ignore[arg-type]


def test_unknown_or_unsupported_hooks_are_refused() -> None:
    runner = HookRunner([])
    with pytest.raises(ValueError, match="did you mean 'agent_end'"):
        run(runner.run("agent_ends", {}, {}))
    with pytest.raises(ValueError, match="does not run 'inbound_claim'"):
        run(runner.run("inbound_claim", {}, {}))


# --------------------------------------------------------------------------- sync handlers and run_sync


def test_sync_handlers_run_in_a_thread_and_results_merge() -> None:
    threads: dict[str, int] = {}

    def sync_handler(event: Any, ctx: Any) -> dict[str, str]:
        threads["handler"] = threading.get_ident()
        return {"appendSystemContext": "from sync"}

    async def async_handler(event: Any, ctx: Any) -> dict[str, str]:
        threads["loop"] = threading.get_ident()
        return {"appendSystemContext": "from async"}

    api = PluginApi("p")
    api.on("before_prompt_build", sync_handler, priority=2)
    api.on("before_prompt_build", async_handler, priority=1)
    result = run(HookRunner(api.registrations).run_before_prompt_build(PROMPT, AGENT_CTX))
    assert result == {"appendSystemContext": "from sync\n\nfrom async"}
    assert threads["handler"] != threads["loop"]


def test_blocking_sync_handler_times_out_without_blocking_the_loop(caplog: pytest.LogCaptureFixture) -> None:
    release = threading.Event()
    ran: list[str] = []

    def blocking(event: Any, ctx: Any) -> None:
        release.wait(10)

    async def other(event: Any, ctx: Any) -> None:
        ran.append("other")

    api = PluginApi("p")
    api.on("message_sent", blocking, priority=2, timeout_ms=50)
    api.on("message_sent", other, priority=1)
    runner = HookRunner(api.registrations)
    try:
        run(runner.run_message_sent({"to": "u", "content": "x", "success": True}, {"channelId": "c"}))
    finally:
        release.set()
    assert ran == ["other"]
    assert [h.outcome for h in runner.metrics[-1].handlers] == ["timed_out", "ok"]


def test_sync_handler_errors_are_caught(caplog: pytest.LogCaptureFixture) -> None:
    def boom(event: Any, ctx: Any) -> None:
        raise OSError(SECRET)

    api = PluginApi("p")
    api.on("agent_end", boom)
    run(HookRunner(api.registrations).run_agent_end({"messages": [], "success": True}, AGENT_CTX))
    assert hook_errors(caplog) == ["[hooks] agent_end handler from p failed: OSError"]
    assert SECRET not in caplog.text


def test_run_sync_from_plain_code() -> None:
    api = PluginApi("p")
    api.on("before_prompt_build", returning({"prependContext": "ctx"}))
    with HookRunner(api.registrations) as runner:
        assert runner.run_sync("before_prompt_build", PROMPT, AGENT_CTX) == {"prependContext": "ctx"}
        assert runner.run_sync("before_prompt_build", PROMPT, AGENT_CTX) == {"prependContext": "ctx"}


def test_run_sync_refuses_to_block_a_running_loop() -> None:
    runner = HookRunner([])

    async def main() -> None:
        with pytest.raises(RuntimeError, match=r"await runner\.run"):
            runner.run_sync("message_received", RECEIVED, RECEIVED_CTX)

    run(main())


def test_metrics_are_content_free() -> None:
    api = PluginApi("p")
    api.on("message_received", returning(None))
    runner = HookRunner(api.registrations)
    run(runner.run_message_received(RECEIVED, RECEIVED_CTX))
    metric = runner.metrics[-1]
    assert metric.hook_name == "message_received" and metric.duration_ms >= 0
    assert SECRET not in repr(metric)
