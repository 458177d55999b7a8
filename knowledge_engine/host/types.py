"""OpenClaw hook payloads as pydantic models: event, context and result types, plus hook names.

Field names are OpenClaw's, in snake_case for Python (`session_key`) and camelCase on the wire
(`sessionKey`); both spellings are accepted. Unknown host fields are kept (``extra="allow"``)
so a newer host never breaks the plugin; they are reachable through ``model.model_extra``.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from datetime import UTC, datetime
from typing import Any, Final

from pydantic import BaseModel, ConfigDict, Field
from pydantic.alias_generators import to_camel

# --------------------------------------------------------------------------- hook names

MESSAGE_RECEIVED: Final = "message_received"
MESSAGE_SENDING: Final = "message_sending"
MESSAGE_SENT: Final = "message_sent"
SESSION_START: Final = "session_start"
SESSION_END: Final = "session_end"
GATEWAY_START: Final = "gateway_start"
GATEWAY_STOP: Final = "gateway_stop"
BEFORE_PROMPT_BUILD: Final = "before_prompt_build"
BEFORE_MODEL_RESOLVE: Final = "before_model_resolve"
LLM_OUTPUT: Final = "llm_output"
AGENT_END: Final = "agent_end"

#: `gateway_stop`'s reason when the gateway reloads plugins (config edit, `openclaw plugins reload`);
#: the plugin is registered again right after, possibly with another config.
STOP_REASON_PLUGIN_REPLACEMENT: Final = "plugin replacement"

#: Every hook name of the OpenClaw plugin SDK 2026.9 (`PluginHookName`). `PluginApi.on` accepts these only.
HOOK_NAMES: Final[frozenset[str]] = frozenset(
    {
        "before_model_resolve", "agent_turn_prepare", "before_prompt_build", "before_agent_reply",
        "model_call_started", "model_call_ended", "llm_input", "llm_output", "before_agent_finalize",
        "agent_end", "before_compaction", "after_compaction", "before_reset", "inbound_claim",
        "channel_pairing_requested", "message_received", "message_sending", "reply_payload_sending",
        "message_sent", "before_tool_call", "after_tool_call", "tool_result_persist", "before_message_write",
        "session_start", "session_end", "subagent_delivery_target", "subagent_spawned", "subagent_progress",
        "subagent_ended", "gateway_start", "gateway_stop", "heartbeat_prompt_contribution", "cron_reconciled",
        "cron_changed", "skill_proposal_evaluate", "skill_proposal_changed", "skill_changed",
        "before_dispatch", "reply_dispatch", "before_install", "before_agent_run", "resolve_exec_env",
    }
)

#: Hooks older hosts had and 2026.9 dropped (the gateway ignores them), with what replaces them.
REMOVED_HOOKS: Final[Mapping[str, str]] = {
    "before_agent_start": "before_prompt_build (context) or before_model_resolve (model override)",
    "subagent_spawning": "subagent_spawned",
}

#: Observation hooks: handlers run concurrently, return values are ignored.
VOID_HOOKS: Final[frozenset[str]] = frozenset(
    {
        "message_received", "message_sent", "session_start", "session_end", "gateway_start",
        "gateway_stop", "agent_end", "before_compaction", "after_compaction", "before_reset",
        "llm_input", "llm_output", "model_call_started", "model_call_ended", "after_tool_call",
        "subagent_spawned", "subagent_progress", "subagent_ended", "cron_changed", "cron_reconciled",
        "skill_changed", "skill_proposal_changed", "channel_pairing_requested",
    }
)

#: Hooks whose handlers run one after another and whose results the reference runner merges.
MODIFYING_HOOKS: Final[frozenset[str]] = frozenset(
    {"before_prompt_build", "before_model_resolve", "message_sending"}
)

#: OpenClaw's default per-handler budgets (ms); hooks not listed have no budget.
DEFAULT_TIMEOUTS_MS: Final[Mapping[str, int]] = {
    "gateway_stop": 5_000,
    "before_prompt_build": 15_000,
    "agent_end": 30_000,
    "before_compaction": 30_000,
    "after_compaction": 30_000,
}

#: Upper bound OpenClaw accepts for an operator or `api.on` budget.
MAX_TIMEOUT_MS: Final = 600_000

#: Known `inputProvenance.kind` values ("user" triggers do not prove a human sender; this does).
PROVENANCE_EXTERNAL_USER: Final = "external_user"
PROVENANCE_INTER_SESSION: Final = "inter_session"
PROVENANCE_INTERNAL_SYSTEM: Final = "internal_system"


# --------------------------------------------------------------------------- helpers

Content = str | list[Any] | dict[str, Any] | None


def payload_field(obj: Any, *names: str) -> Any:
    """The first non-None of `names` on a host payload: a camelCase dict or a parsed model."""
    for name in names:
        value = obj.get(name) if isinstance(obj, Mapping) else getattr(obj, name, None)
        if value is not None:
            return value
    return None


def text_of(content: Any) -> str:
    """Plain text of a message content: a string, or parts such as ``{"type": "text", "text": ...}``.

    Non-text parts (images, tool calls) are skipped; text parts are joined with a newline.
    Anything else yields "" so a strange payload never raises inside a handler.
    """
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if isinstance(content, Mapping):
        return _text_of_part(content)
    if isinstance(content, list | tuple):
        texts = (t for t in (_text_of_part(p) for p in content) if t)
        return "\n".join(texts)
    return ""


def _text_of_part(part: Any) -> str:
    if isinstance(part, str):
        return part
    if not isinstance(part, Mapping):
        return ""
    kind = part.get("type", "text")
    if kind not in ("text", "input_text", "output_text"):
        return ""
    text = part.get("text")
    if isinstance(text, str):
        return text
    nested = part.get("content")
    return text_of(nested) if isinstance(nested, list | str) else ""


# Epoch magnitudes: seconds up to ~5138 AD, then ms, us, ns.
_EPOCH_DIVISORS: Final = ((1e17, 1e9), (1e14, 1e6), (1e11, 1e3))


def parse_timestamp(value: Any) -> datetime | None:
    """A timezone-aware UTC datetime from an ISO 8601 string or epoch seconds/ms/us/ns.

    Naive values are taken as UTC. Returns None for None and for anything unparseable, so the
    caller decides whether to fall back to "now" (and count it) or to skip.
    """
    if value is None or isinstance(value, bool):
        return None
    if isinstance(value, datetime):
        return value if value.tzinfo else value.replace(tzinfo=UTC)
    if isinstance(value, int | float):
        return _from_epoch(float(value))
    if isinstance(value, str):
        return _from_string(value.strip())
    return None


def _from_epoch(v: float) -> datetime | None:
    if not math.isfinite(v):
        return None
    for threshold, divisor in _EPOCH_DIVISORS:
        if abs(v) >= threshold:
            v /= divisor
            break
    try:
        return datetime.fromtimestamp(v, tz=UTC)
    except (OverflowError, OSError, ValueError):
        return None


def _from_string(s: str) -> datetime | None:
    if not s:
        return None
    try:
        return _from_epoch(float(s))
    except ValueError:
        pass
    try:
        dt = datetime.fromisoformat(s)
    except ValueError:
        return None
    return dt if dt.tzinfo else dt.replace(tzinfo=UTC)


def agent_id_from_session_key(session_key: str | None) -> str | None:
    """The agent id in an OpenClaw session key `agent:<agentId>:<rest>` (lower-cased, as the host does)."""
    if not session_key:
        return None
    parts = session_key.split(":", 2)
    if len(parts) < 3 or parts[0].lower() != "agent" or not parts[1] or not parts[2]:
        return None
    return parts[1].lower()


def resolve_agent_id(ctx: Any, event: Any = None) -> str | None:
    """`ctx.agent_id`, else the agent encoded in the ctx's or event's `session_key`.

    OpenClaw's message hooks carry no `agentId`; their `sessionKey` does encode it.
    """
    agent_id = getattr(ctx, "agent_id", None)
    if agent_id:
        return str(agent_id)
    for source in (ctx, event):
        found = agent_id_from_session_key(getattr(source, "session_key", None))
        if found:
            return found
    return None


# --------------------------------------------------------------------------- base


class HostModel(BaseModel):
    """Base of every payload: camelCase on the wire, snake_case in Python, unknown fields kept."""

    model_config = ConfigDict(
        alias_generator=to_camel, populate_by_name=True, extra="allow", coerce_numbers_to_str=True
    )

    def to_host(self) -> dict[str, Any]:
        """The camelCase dict a host would send or expect (None fields left out)."""
        return self.model_dump(by_alias=True, exclude_none=True)


# --------------------------------------------------------------------------- events


class _MessageEvent(HostModel):
    content: Content
    timestamp: int | float | str | None = None
    message_id: str | None = None
    session_key: str | None = None
    run_id: str | None = None
    thread_id: str | None = None
    metadata: dict[str, Any] | None = None

    @property
    def content_text(self) -> str:
        """The message as plain text (see `text_of`)."""
        return text_of(self.content)

    @property
    def timestamp_dt(self) -> datetime | None:
        """`timestamp` as an aware UTC datetime, None when absent or unparseable."""
        return parse_timestamp(self.timestamp)


class MessageReceivedEvent(_MessageEvent):
    """`message_received`: an inbound message (user or another agent)."""

    from_: str = Field(alias="from")
    sender_id: str | None = None
    reply_to_id: str | None = None
    sender_group: str | None = None


class MessageSendingEvent(HostModel):
    """`message_sending`: a reply about to be delivered (webchat and A2A replies fire only this one)."""

    to: str = ""
    content: Content = None
    reply_to_id: str | None = None
    thread_id: str | None = None
    metadata: dict[str, Any] | None = None


class MessageSentEvent(_MessageEvent):
    """`message_sent`: fires only on outbound channel delivery; correlate by `session_key` / `run_id`."""

    to: str
    success: bool
    error: str | None = None


class SessionStartEvent(HostModel):
    session_id: str
    session_key: str | None = None
    resumed_from: str | None = None


class SessionEndEvent(HostModel):
    session_id: str | None = None
    session_key: str | None = None
    message_count: int | None = None
    reason: str | None = None


class GatewayStopEvent(HostModel):
    reason: str | None = None


class GatewayStartEvent(HostModel):
    port: int | None = None


class BeforePromptBuildEvent(HostModel):
    """`before_prompt_build`. `current_user_message == ""` means "no textual request": do not fall back."""

    prompt: str
    messages: list[Any] = Field(default_factory=list)
    current_user_message: str | None = None
    current_user_message_id: str | None = None

    @property
    def user_text(self) -> str:
        """The user's request: `current_user_message` when the host sent it (even ""), else `prompt`."""
        return self.prompt if self.current_user_message is None else self.current_user_message


class BeforeModelResolveEvent(HostModel):
    prompt: str = ""


class AgentEndEvent(HostModel):
    """`agent_end`: `messages` is the session's whole history (user, assistant, tool messages)."""

    run_id: str | None = None
    messages: list[Any] = Field(default_factory=list)
    success: bool
    error: str | None = None
    duration_ms: float | None = None


class LlmOutputEvent(HostModel):
    """`llm_output`: one model call's reply; `last_assistant` is the message as stored in the history."""

    run_id: str | None = None
    session_id: str | None = None
    provider: str | None = None
    model: str | None = None
    assistant_texts: list[Any] = Field(default_factory=list)
    last_assistant: Any = None


class GenericEvent(HostModel):
    """Payload of a hook this package has no dedicated model for."""


# --------------------------------------------------------------------------- contexts


class InputProvenance(HostModel):
    kind: str
    origin_session_id: str | None = None
    source_session_key: str | None = None
    source_channel: str | None = None
    source_tool: str | None = None


class MessageContext(HostModel):
    """Context of message hooks. `channel_id` is required by OpenClaw; Python hosts may omit it."""

    channel_id: str | None = None
    account_id: str | None = None
    conversation_id: str | None = None
    session_key: str | None = None
    run_id: str | None = None
    message_id: str | None = None
    sender_id: str | None = None
    agent_id: str | None = None
    workspace_dir: str | None = None


class AgentContext(HostModel):
    """Agent hooks' context. `channel` is the channel (webchat, a2a); `channel_id` the conversation target."""

    run_id: str | None = None
    agent_id: str | None = None
    session_key: str | None = None
    session_id: str | None = None
    workspace_dir: str | None = None
    channel: str | None = None
    channel_id: str | None = None
    chat_id: str | None = None
    sender_id: str | None = None
    account_id: str | None = None
    trigger: str | None = None
    message_provider: str | None = None
    model_provider_id: str | None = None
    model_id: str | None = None
    input_provenance: InputProvenance | None = None


class SessionContext(HostModel):
    session_id: str | None = None
    session_key: str | None = None
    agent_id: str | None = None
    workspace_dir: str | None = None


class GatewayContext(HostModel):
    workspace_dir: str | None = None
    port: int | None = None
    config: dict[str, Any] | None = None


class GenericContext(HostModel):
    """Context of a hook this package has no dedicated model for."""


# --------------------------------------------------------------------------- results


class BeforePromptBuildResult(HostModel):
    """What a `before_prompt_build` handler may return. Unknown keys are dropped, as by the host."""

    model_config = ConfigDict(extra="ignore", coerce_numbers_to_str=False)

    system_prompt: str | None = None
    prepend_context: str | None = None
    append_context: str | None = None
    prepend_system_context: str | None = None
    append_system_context: str | None = None


class MessageSendingResult(HostModel):
    """What a `message_sending` handler may return (the engine returns nothing: it only observes)."""

    model_config = ConfigDict(extra="ignore", coerce_numbers_to_str=False)

    content: str | None = None
    cancel: bool | None = None
    cancel_reason: str | None = None


class BeforeModelResolveResult(HostModel):
    model_config = ConfigDict(extra="ignore", coerce_numbers_to_str=False)

    model_override: str | None = None
    provider_override: str | None = None


#: Text fields concatenated across handlers (priority order, blank line between).
CONCAT_RESULT_FIELDS: Final = (
    "prependContext", "appendContext", "prependSystemContext", "appendSystemContext",
)
#: Fields where the first defined value (highest priority) wins.
FIRST_WINS_RESULT_FIELDS: Final = (
    "systemPrompt", "modelOverride", "providerOverride", "content", "cancel", "cancelReason",
)

#: (event model, context model) the runner parses each hook's dicts into.
HOOK_MODELS: Final[Mapping[str, tuple[type[HostModel], type[HostModel]]]] = {
    "message_received": (MessageReceivedEvent, MessageContext),
    "message_sending": (MessageSendingEvent, MessageContext),
    "message_sent": (MessageSentEvent, MessageContext),
    "session_start": (SessionStartEvent, SessionContext),
    "session_end": (SessionEndEvent, SessionContext),
    "gateway_start": (GatewayStartEvent, GatewayContext),
    "gateway_stop": (GatewayStopEvent, GatewayContext),
    "before_prompt_build": (BeforePromptBuildEvent, AgentContext),
    "before_model_resolve": (BeforeModelResolveEvent, AgentContext),
    "agent_end": (AgentEndEvent, AgentContext),
    "llm_output": (LlmOutputEvent, AgentContext),
}

#: Result model per modifying hook.
HOOK_RESULT_MODELS: Final[Mapping[str, type[HostModel]]] = {
    "before_prompt_build": BeforePromptBuildResult,
    "message_sending": MessageSendingResult,
    "before_model_resolve": BeforeModelResolveResult,
}


def models_for(hook_name: str) -> tuple[type[HostModel], type[HostModel]]:
    """Event and context model of a hook (generic ones for hooks without a dedicated model)."""
    return HOOK_MODELS.get(hook_name, (GenericEvent, GenericContext))
