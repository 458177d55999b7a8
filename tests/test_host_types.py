"""Host payload models: camelCase host JSON in, OpenClaw field names out, helpers for content and time."""

from __future__ import annotations

import math
from datetime import UTC, datetime, timedelta, timezone

import pytest
from pydantic import ValidationError

from knowledge_engine.host import (
    DEFAULT_TIMEOUTS_MS,
    HOOK_NAMES,
    MODIFYING_HOOKS,
    PROVENANCE_EXTERNAL_USER,
    VOID_HOOKS,
    AgentContext,
    AgentEndEvent,
    BeforePromptBuildEvent,
    BeforePromptBuildResult,
    GatewayContext,
    GatewayStopEvent,
    GenericEvent,
    MessageContext,
    MessageReceivedEvent,
    MessageSendingResult,
    MessageSentEvent,
    SessionContext,
    SessionStartEvent,
    agent_id_from_session_key,
    models_for,
    parse_timestamp,
    resolve_agent_id,
    text_of,
)

# A message_received payload shaped like what the OpenClaw gateway sends for a Telegram DM.
HOST_RECEIVED = {
    "from": "telegram:814220113",
    "content": "Remind me that Dana Whitfield moved to Lisbon in March.",
    "timestamp": 1767225600000,
    "threadId": "dm",
    "messageId": 4711,
    "senderId": "814220113",
    "sessionKey": "agent:main:telegram:dm:814220113",
    "runId": "run-7c1e",
    "traceId": "0af7651916cd43dd8448eb211c80319c",
    "metadata": {"provider": "telegram", "surface": "dm"},
    "replyToBody": None,
}
HOST_MESSAGE_CTX = {
    "channelId": "telegram",
    "accountId": "default",
    "conversationId": "814220113",
    "sessionKey": "agent:main:telegram:dm:814220113",
    "senderId": "814220113",
    "callDepth": 0,
}


def test_message_received_parses_host_camel_case_and_keeps_unknown_fields() -> None:
    ev = MessageReceivedEvent.model_validate(HOST_RECEIVED)
    assert ev.from_ == "telegram:814220113"
    assert ev.message_id == "4711"  # a numeric id from a Python host becomes a string
    assert ev.session_key == "agent:main:telegram:dm:814220113"
    assert ev.sender_id == "814220113"
    assert ev.run_id == "run-7c1e"
    assert ev.thread_id == "dm"
    assert ev.metadata == {"provider": "telegram", "surface": "dm"}
    assert ev.model_extra == {"traceId": "0af7651916cd43dd8448eb211c80319c", "replyToBody": None}
    assert ev.timestamp_dt == datetime(2026, 1, 1, tzinfo=UTC)
    assert ev.content_text.startswith("Remind me")


def test_message_received_round_trips_to_host_spelling() -> None:
    out = MessageReceivedEvent.model_validate(HOST_RECEIVED).to_host()
    assert out["from"] == "telegram:814220113"
    assert out["messageId"] == "4711"
    assert out["traceId"] == HOST_RECEIVED["traceId"]
    assert "from_" not in out and "message_id" not in out


def test_models_accept_python_field_names_too() -> None:
    ev = MessageReceivedEvent(from_="user", content="hi", session_key="s1")
    assert ev.from_ == "user" and ev.session_key == "s1"
    ctx = MessageContext(channel_id="cli", agent_id="a1", workspace_dir="/tmp/w")
    assert ctx.to_host() == {"channelId": "cli", "agentId": "a1", "workspaceDir": "/tmp/w"}


def test_message_context_from_host() -> None:
    ctx = MessageContext.model_validate(HOST_MESSAGE_CTX)
    assert (ctx.channel_id, ctx.account_id, ctx.conversation_id) == ("telegram", "default", "814220113")
    assert ctx.model_extra == {"callDepth": 0}
    assert MessageContext.model_validate({}).channel_id is None  # Python hosts may have no channel


def test_message_sent_requires_to_content_success() -> None:
    ev = MessageSentEvent.model_validate(
        {"to": "telegram:1", "content": "Done.", "success": False, "error": "rate limited", "sessionKey": "k"}
    )
    assert (ev.to, ev.success, ev.error, ev.session_key) == ("telegram:1", False, "rate limited", "k")
    with pytest.raises(ValidationError) as err:
        MessageSentEvent.model_validate({"to": "x", "content": "y"})
    assert [e["loc"] for e in err.value.errors()] == [("success",)]


def test_message_received_requires_from_and_content() -> None:
    with pytest.raises(ValidationError) as err:
        MessageReceivedEvent.model_validate({"timestamp": 1})
    assert {e["loc"][0] for e in err.value.errors()} == {"from", "content"}


def test_content_as_list_of_parts() -> None:
    ev = MessageReceivedEvent.model_validate(
        {
            "from": "u",
            "content": [
                {"type": "text", "text": "First line."},
                {"type": "image", "source": {"type": "base64", "data": "AAAA"}},
                {"type": "text", "text": "Second line."},
                {"type": "tool_use", "name": "search", "input": {}},
            ],
        }
    )
    assert ev.content_text == "First line.\nSecond line."


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        (None, ""),
        ("plain", "plain"),
        ([], ""),
        (["a", "b"], "a\nb"),
        ({"type": "text", "text": "single part"}, "single part"),
        ([{"text": "no type means text"}], "no type means text"),
        ([{"type": "input_text", "text": "responses api"}], "responses api"),
        ([{"type": "text", "content": [{"type": "text", "text": "nested"}]}], "nested"),
        ([{"type": "text", "text": ""}, {"type": "text", "text": "x"}], "x"),
        ([{"type": "text", "text": 42}, 7, None], ""),
        (12345, ""),
        ({"type": "image_url", "image_url": "http://x"}, ""),
    ],
)
def test_text_of(content: object, expected: str) -> None:
    assert text_of(content) == expected


EPOCH_2026 = datetime(2026, 1, 1, tzinfo=UTC)


@pytest.mark.parametrize(
    "value",
    [
        1767225600,
        1767225600.0,
        1767225600000,
        1767225600000000,
        1767225600000000000,
        "1767225600000",
        "2026-01-01T00:00:00Z",
        "2026-01-01T00:00:00+00:00",
        "2026-01-01T01:00:00+01:00",
        "2026-01-01T00:00:00",
        "2026-01-01 00:00:00.000Z",
        datetime(2026, 1, 1),
        datetime(2026, 1, 1, 1, tzinfo=timezone(timedelta(hours=1))),
    ],
)
def test_parse_timestamp_accepts_iso_and_epoch_units(value: object) -> None:
    parsed = parse_timestamp(value)
    assert parsed == EPOCH_2026
    assert parsed is not None and parsed.tzinfo is not None


@pytest.mark.parametrize(
    "value", [None, "", "   ", "yesterday", "2026-13-45", True, math.nan, math.inf, 1e300, [1], {"t": 1}]
)
def test_parse_timestamp_returns_none_for_unusable_values(value: object) -> None:
    assert parse_timestamp(value) is None


def test_unparseable_timestamp_does_not_reject_the_event() -> None:
    ev = MessageReceivedEvent.model_validate({"from": "u", "content": "x", "timestamp": "not a date"})
    assert ev.timestamp_dt is None


def test_session_gateway_and_agent_end_events() -> None:
    start = SessionStartEvent.model_validate({"sessionId": "s-2", "sessionKey": "k", "resumedFrom": "s-1"})
    assert (start.session_id, start.session_key, start.resumed_from) == ("s-2", "k", "s-1")
    assert GatewayStopEvent.model_validate({}).reason is None
    assert GatewayStopEvent.model_validate({"reason": "SIGTERM"}).reason == "SIGTERM"
    end = AgentEndEvent.model_validate(
        {"runId": "r1", "messages": [{"role": "user", "content": "q"}], "success": True, "durationMs": 1234}
    )
    assert (end.run_id, end.success, end.duration_ms, len(end.messages)) == ("r1", True, 1234, 1)
    gw = GatewayContext.model_validate({"workspaceDir": "/srv/agents", "port": 18789})
    assert (gw.workspace_dir, gw.port) == ("/srv/agents", 18789)
    sess = SessionContext.model_validate({"agentId": "main", "sessionId": "s-2", "workspaceDir": "/w"})
    assert (sess.agent_id, sess.session_id, sess.workspace_dir) == ("main", "s-2", "/w")


def test_agent_context_with_input_provenance() -> None:
    ctx = AgentContext.model_validate(
        {
            "runId": "r1",
            "agentId": "main",
            "sessionKey": "agent:main:main",
            "sessionId": "s1",
            "workspaceDir": "/home/u/.openclaw/workspace",
            "channelId": "webchat",
            "trigger": "user",
            "messageProvider": "webchat",
            "modelProviderId": "anthropic",
            "contextTokenBudget": 200000,
            "inputProvenance": {"kind": "external_user", "sourceChannel": "webchat", "futureField": 1},
        }
    )
    assert ctx.trigger == "user" and ctx.workspace_dir == "/home/u/.openclaw/workspace"
    assert ctx.input_provenance is not None
    assert ctx.input_provenance.kind == PROVENANCE_EXTERNAL_USER
    assert ctx.input_provenance.source_channel == "webchat"
    assert ctx.input_provenance.model_extra == {"futureField": 1}
    assert ctx.model_extra == {"contextTokenBudget": 200000}


def test_before_prompt_build_user_text_respects_empty_current_message() -> None:
    base = {"prompt": "full prompt", "messages": [{"role": "user", "content": "hi"}]}
    assert BeforePromptBuildEvent.model_validate(base).user_text == "full prompt"
    with_current = {**base, "currentUserMessage": "hi", "currentUserMessageId": "m9"}
    ev = BeforePromptBuildEvent.model_validate(with_current)
    assert (ev.user_text, ev.current_user_message_id) == ("hi", "m9")
    # "" means "no textual request": the prompt must not be used instead.
    assert BeforePromptBuildEvent.model_validate({**base, "currentUserMessage": ""}).user_text == ""


def test_result_models_drop_unknown_keys_and_dump_camel_case() -> None:
    res = BeforePromptBuildResult.model_validate(
        {"prependContext": "a", "systemContext": "silently ignored by the host", "append_system_context": "b"}
    )
    assert res.to_host() == {"prependContext": "a", "appendSystemContext": "b"}
    sending = MessageSendingResult.model_validate({"content": "c", "cancel": False, "extra": 1})
    assert sending.to_host() == {"content": "c", "cancel": False}


def test_hook_name_sets() -> None:
    assert VOID_HOOKS <= HOOK_NAMES and MODIFYING_HOOKS <= HOOK_NAMES
    assert not VOID_HOOKS & MODIFYING_HOOKS
    assert {"message_received", "message_sent", "session_start", "gateway_stop", "agent_end"} <= VOID_HOOKS
    assert {"before_prompt_build", "message_sending"} <= MODIFYING_HOOKS
    assert {"llm_output", "session_end"} <= VOID_HOOKS
    assert len(HOOK_NAMES) == 42  # OpenClaw 2026.9's PluginHookName
    assert "before_agent_start" not in HOOK_NAMES  # removed in 2026.9
    assert DEFAULT_TIMEOUTS_MS["gateway_stop"] == 5000
    assert DEFAULT_TIMEOUTS_MS["before_prompt_build"] == 15000
    assert DEFAULT_TIMEOUTS_MS["agent_end"] == 30000
    assert "message_received" not in DEFAULT_TIMEOUTS_MS


def test_models_for_known_and_generic_hooks() -> None:
    assert models_for("message_sent") == (MessageSentEvent, MessageContext)
    assert models_for("before_prompt_build")[1] is AgentContext
    assert models_for("llm_input")[0] is GenericEvent


@pytest.mark.parametrize(
    ("key", "expected"),
    [
        ("agent:main:main", "main"),
        ("agent:Work:telegram:dm:814220113", "work"),
        ("agent:ops:discord:channel:42", "ops"),
        ("main", None),
        ("agent::main", None),
        ("agent:main", None),
        ("", None),
        (None, None),
    ],
)
def test_agent_id_from_session_key(key: str | None, expected: str | None) -> None:
    assert agent_id_from_session_key(key) == expected


def test_resolve_agent_id_prefers_ctx_then_session_keys() -> None:
    msg_ctx = MessageContext.model_validate(HOST_MESSAGE_CTX)  # no agentId, like OpenClaw's message ctx
    assert resolve_agent_id(msg_ctx) == "main"
    agent_ctx = AgentContext.model_validate({"agentId": "ops", "sessionKey": "agent:main:x"})
    assert resolve_agent_id(agent_ctx) == "ops"
    ev = MessageReceivedEvent.model_validate({"from": "u", "content": "x", "sessionKey": "agent:eve:main"})
    assert resolve_agent_id(MessageContext(), ev) == "eve"
    assert resolve_agent_id(MessageContext()) is None
