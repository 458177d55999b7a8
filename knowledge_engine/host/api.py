"""`PluginApi`: what a Python host hands to a plugin's `register(api)`.

It mirrors the subset of OpenClaw's `api` the engine needs (`id`, `plugin_config`, `logger`, `on`)
and records registrations for a `HookRunner`. Validation happens here, at registration time, so
a typo in a hook name fails when the plugin loads instead of silently never firing.
"""

from __future__ import annotations

import difflib
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from knowledge_engine.host.types import HOOK_NAMES, MAX_TIMEOUT_MS, REMOVED_HOOKS

Handler = Callable[[Any, Any], Awaitable[Any] | Any]


@dataclass(frozen=True, slots=True)
class HookRegistration:
    """One `api.on` call. The runner keeps registration order among handlers of equal priority."""

    plugin_id: str
    hook_name: str
    handler: Handler
    priority: float = 0
    timeout_ms: int | None = None


def check_hook_name(hook_name: str) -> None:
    """Raise a ValueError naming the closest known hook when `hook_name` is not an OpenClaw hook."""
    if hook_name in HOOK_NAMES:
        return
    if hook_name in REMOVED_HOOKS:
        raise ValueError(
            f"hook {hook_name!r} no longer exists in OpenClaw 2026.9 (the gateway ignores it); "
            f"use {REMOVED_HOOKS[hook_name]}"
        )
    close = difflib.get_close_matches(str(hook_name), sorted(HOOK_NAMES), n=1)
    hint = f"; did you mean {close[0]!r}?" if close else f"; known hooks: {', '.join(sorted(HOOK_NAMES))}"
    raise ValueError(f"unknown hook name {hook_name!r}{hint}")


def check_timeout_ms(value: Any, what: str) -> int | None:
    """A budget must be None or a positive int <= 600000 ms, as OpenClaw enforces."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or not 0 < value <= MAX_TIMEOUT_MS:
        raise ValueError(f"{what} must be a positive integer of at most {MAX_TIMEOUT_MS} ms, got {value!r}")
    return value


class PluginApi:
    """The host side of one plugin: config in, hook registrations out."""

    def __init__(
        self,
        plugin_id: str,
        plugin_config: dict[str, Any] | None = None,
        logger: logging.Logger | None = None,
        *,
        config: dict[str, Any] | None = None,
        registration_mode: str = "full",
    ) -> None:
        if not isinstance(plugin_id, str) or not plugin_id:
            raise ValueError("plugin_id must be a non-empty string")
        self.id = plugin_id
        self.plugin_config: dict[str, Any] = dict(plugin_config or {})
        self.logger = logger or logging.getLogger(f"knowledge_engine.plugin.{plugin_id}")
        self.config: dict[str, Any] = dict(config or {})  # the whole host config, as OpenClaw's api.config
        # OpenClaw's api.registrationMode: "full" once per gateway, "discovery" when it only lists plugins
        self.registration_mode = registration_mode
        self._registrations: list[HookRegistration] = []

    @property
    def registrations(self) -> list[HookRegistration]:
        """A copy of the registrations, in registration order."""
        return list(self._registrations)

    def on(
        self, hook_name: str, handler: Handler, priority: float = 0, timeout_ms: int | None = None
    ) -> HookRegistration:
        """Register `handler(event, ctx)` for `hook_name`; higher `priority` runs first.

        `handler` may be `async def` (preferred) or a plain function (run in a worker thread).
        `timeout_ms` is this handler's budget; operator overrides given to the runner win over it.
        """
        check_hook_name(hook_name)
        if not callable(handler):
            raise TypeError(f"handler for {hook_name!r} must be callable, got {type(handler).__name__}")
        if isinstance(priority, bool) or not isinstance(priority, int | float):
            raise TypeError(f"priority for {hook_name!r} must be a number, got {priority!r}")
        timeout = check_timeout_ms(timeout_ms, f"timeout_ms for {hook_name!r}")
        reg = HookRegistration(self.id, hook_name, handler, priority, timeout)
        self._registrations.append(reg)
        self.logger.debug("[hooks] %s registered %s (priority %s)", self.id, hook_name, priority)
        return reg
