"""PluginApi: what `register(api)` sees, and registration-time validation."""

from __future__ import annotations

import logging
from typing import Any

import pytest

from knowledge_engine.host import HookRegistration, HookRunner, PluginApi


async def _noop(event: Any, ctx: Any) -> None:
    return None


def register(api: PluginApi) -> None:
    """Shaped like knowledge_engine.plugin.register."""
    api.on("session_start", _noop, priority=100)
    api.on("message_received", _noop, priority=100)
    api.on("message_sent", _noop, priority=100)
    api.on("before_prompt_build", _noop, priority=50, timeout_ms=2000)
    api.on("gateway_stop", _noop, priority=100, timeout_ms=5000)


def test_register_records_every_call_in_order() -> None:
    api = PluginApi("knowledge-engine", {"enabled": True})
    register(api)
    regs = api.registrations
    assert [r.hook_name for r in regs] == [
        "session_start",
        "message_received",
        "message_sent",
        "before_prompt_build",
        "gateway_stop",
    ]
    assert all(r.plugin_id == "knowledge-engine" and r.handler is _noop for r in regs)
    assert regs[3] == HookRegistration("knowledge-engine", "before_prompt_build", _noop, 50, 2000)
    assert regs[0].timeout_ms is None


def test_registrations_is_a_copy() -> None:
    api = PluginApi("p")
    api.on("message_received", _noop)
    api.registrations.clear()
    assert len(api.registrations) == 1


def test_plugin_config_logger_and_id() -> None:
    cfg = {"storage": {"writeDebounceMs": 100}}
    custom = logging.getLogger("host.custom")
    api = PluginApi("knowledge-engine", cfg, custom, config={"plugins": {}})
    assert api.id == "knowledge-engine"
    assert api.plugin_config == cfg and api.plugin_config is not cfg
    assert api.logger is custom
    assert api.config == {"plugins": {}}
    default = PluginApi("p2")
    assert default.plugin_config == {}
    assert default.logger.name == "knowledge_engine.plugin.p2"


def test_unknown_hook_name_suggests_the_closest() -> None:
    api = PluginApi("p")
    with pytest.raises(
        ValueError, match=r"unknown hook name 'mesage_received'; did you mean 'message_received'"
    ):
        api.on("mesage_received", _noop)
    with pytest.raises(ValueError, match=r"known hooks: .*gateway_stop"):
        api.on("zzzzzz", _noop)
    assert api.registrations == []


@pytest.mark.parametrize("timeout_ms", [0, -5, 600_001, 1.5, True, "100"])
def test_bad_timeout_is_rejected(timeout_ms: Any) -> None:
    with pytest.raises(ValueError, match="timeout_ms for 'agent_end' must be a positive integer"):
        PluginApi("p").on("agent_end", _noop, timeout_ms=timeout_ms)


def test_bad_handler_and_priority_are_rejected() -> None:
    api = PluginApi("p")
    with pytest.raises(TypeError, match="must be callable"):
        api.on("agent_end", "not a function")  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="priority"):
        api.on("agent_end", _noop, priority="high")  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="priority"):
        api.on("agent_end", _noop, priority=True)


def test_empty_plugin_id_is_rejected() -> None:
    with pytest.raises(ValueError, match="plugin_id"):
        PluginApi("")


def test_runner_accepts_registrations_of_several_plugins() -> None:
    a, b = PluginApi("a"), PluginApi("b")
    a.on("message_received", _noop, priority=1)
    b.on("message_received", _noop, priority=5)
    runner = HookRunner(a.registrations + b.registrations)
    assert [r.plugin_id for r in runner.handlers_for("message_received")] == ["b", "a"]
    assert runner.has_hooks("message_received") and not runner.has_hooks("agent_end")


def test_runner_from_apis_keeps_load_order_for_ties() -> None:
    a, b = PluginApi("a"), PluginApi("b")
    a.on("agent_end", _noop)
    b.on("agent_end", _noop)
    assert [r.plugin_id for r in HookRunner.from_apis(b, a).handlers_for("agent_end")] == ["b", "a"]
