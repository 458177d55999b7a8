"""`HookRunner`: OpenClaw's hook-runner semantics for Python hosts and for tests.

- Handlers run in priority order, higher first; equal priorities keep registration order.
- Void hooks run concurrently (`asyncio.gather`); priority only sets launch order.
- Modifying hooks run one after another; their results are merged (text fields concatenated
  with a blank line, `systemPrompt`/overrides: first defined wins, unknown keys dropped).
- A failing handler is logged and skipped (`catch_errors=True`, the default) or raises `HookError`.
- Each handler has a budget (operator override, else `api.on(timeout_ms=...)`, else the hook
  default). On expiry the runner moves on and a late result is discarded; the work is not cancelled.

Logs and metrics are content-free: hook names, plugin ids, error types, durations and counts.
Exception messages of foreign errors are never logged (they may quote message text).
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import inspect
import logging
import threading
import time
import traceback
from collections import Counter, deque
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Literal

from pydantic import BaseModel, ValidationError

from knowledge_engine import observe
from knowledge_engine.host.api import HookRegistration, PluginApi, check_hook_name, check_timeout_ms
from knowledge_engine.host.types import (
    AGENT_END,
    BEFORE_PROMPT_BUILD,
    CONCAT_RESULT_FIELDS,
    DEFAULT_TIMEOUTS_MS,
    FIRST_WINS_RESULT_FIELDS,
    GATEWAY_STOP,
    HOOK_RESULT_MODELS,
    LLM_OUTPUT,
    MESSAGE_RECEIVED,
    MESSAGE_SENDING,
    MESSAGE_SENT,
    MODIFYING_HOOKS,
    SESSION_END,
    SESSION_START,
    VOID_HOOKS,
    HostModel,
    models_for,
)

Payload = Mapping[str, Any] | BaseModel | None
Outcome = Literal["ok", "failed", "timed_out"]

_SEPARATOR = "\n\n"
_ALL_HOOKS_KEY = "*"


# --------------------------------------------------------------------------- errors


class ContentFreeError(Exception):
    """An error raised by this package whose message never contains payload text (safe to log)."""


class HookError(ContentFreeError):
    """A handler failed and `catch_errors` is off; the original exception is `__cause__`."""

    def __init__(self, message: str, hook_name: str, plugin_id: str) -> None:
        super().__init__(message)
        self.hook_name = hook_name
        self.plugin_id = plugin_id


class HookTimeoutError(ContentFreeError, TimeoutError):
    def __init__(self, timeout_ms: int) -> None:
        super().__init__(f"timed out after {timeout_ms}ms")
        self.timeout_ms = timeout_ms


class HookPayloadError(ContentFreeError, ValueError):
    """An event, context or result that does not match the hook's model (fields and reasons only)."""


def describe_validation_error(exc: ValidationError) -> str:
    """`loc: type` pairs; pydantic's own text quotes the input values, which may be message text."""
    parts = [f"{'.'.join(str(p) for p in err['loc']) or '<root>'}: {err['type']}" for err in exc.errors()]
    return "; ".join(parts)


# --------------------------------------------------------------------------- metrics


@dataclass(frozen=True, slots=True)
class HandlerMetric:
    hook_name: str
    plugin_id: str
    outcome: Outcome
    duration_ms: float
    error_type: str | None = None


@dataclass(frozen=True, slots=True)
class RunMetric:
    hook_name: str
    duration_ms: float
    handlers: tuple[HandlerMetric, ...]

    def count(self, outcome: Outcome) -> int:
        return sum(1 for h in self.handlers if h.outcome == outcome)


@dataclass(frozen=True, slots=True)
class _Entry:
    reg: HookRegistration
    is_async: bool


@dataclass(slots=True)
class _Call:
    metric: HandlerMetric
    result: Any = None
    error: BaseException | None = None


def _is_async_callable(fn: Any) -> bool:
    return inspect.iscoroutinefunction(fn) or inspect.iscoroutinefunction(getattr(fn, "__call__", None))  # noqa: B004


# --------------------------------------------------------------------------- runner


class HookRunner:
    """Runs registered handlers for one hook at a time, as OpenClaw's gateway does."""

    def __init__(
        self,
        registrations: Iterable[HookRegistration],
        logger: logging.Logger | None = None,
        catch_errors: bool = True,
        timeouts: Mapping[str, int] | None = None,
        metrics_size: int = 256,
    ) -> None:
        self.logger = logger or logging.getLogger("knowledge_engine.host")
        self.catch_errors = catch_errors
        self._timeouts = _check_timeouts(timeouts or {})
        self._by_hook = _index(registrations)
        self.metrics: deque[RunMetric] = deque(maxlen=metrics_size)
        self._stats: dict[str, Counter[str]] = {}
        self._late: set[asyncio.Task[Any]] = set()
        self._loop_thread: _LoopThread | None = None
        self._loop_lock = threading.Lock()

    @classmethod
    def from_apis(cls, *apis: PluginApi, **options: Any) -> HookRunner:
        """A runner over the registrations of several plugins, in load order."""
        return cls([reg for api in apis for reg in api.registrations], **options)

    # ------------------------------------------------------------------ introspection

    def has_hooks(self, hook_name: str) -> bool:
        return bool(self._by_hook.get(hook_name))

    def handlers_for(self, hook_name: str) -> tuple[HookRegistration, ...]:
        """Registrations in the order the runner launches them."""
        return tuple(e.reg for e in self._by_hook.get(hook_name, ()))

    def timeout_for(self, reg: HookRegistration) -> int | None:
        """Budget in ms: operator per-hook, operator "*", `api.on` value, hook default; None = unbounded."""
        for candidate in (
            self._timeouts.get(reg.hook_name),
            self._timeouts.get(_ALL_HOOKS_KEY),
            reg.timeout_ms,
            DEFAULT_TIMEOUTS_MS.get(reg.hook_name),
        ):
            if candidate is not None:
                return candidate
        return None

    @property
    def late_pending(self) -> int:
        """Handlers that overran their budget and are still running."""
        return len(self._late)

    async def wait_for_late(self, timeout: float | None = None) -> int:
        """Wait for overrunning handlers (their results stay discarded); returns how many still run."""
        if self._late:
            await asyncio.wait(set(self._late), timeout=timeout)
        return len(self._late)

    def stats(self) -> dict[str, dict[str, int]]:
        """Per hook: runs and handler outcomes (ok, failed, timed_out) since the runner was built."""
        return {hook: dict(c) for hook, c in self._stats.items()}

    # ------------------------------------------------------------------ running

    async def run(self, hook_name: str, event: Payload, ctx: Payload = None) -> dict[str, Any] | None:
        """Run every handler of `hook_name`. Void hooks return None; modifying hooks the merged
        camelCase result, or None when no handler returned one. Dicts are parsed into the hook's models."""
        _check_runnable(hook_name)
        entries = self._by_hook.get(hook_name)
        if not entries:
            return None
        try:
            ev, cx = self._parse(hook_name, event, ctx)
        except HookPayloadError as exc:
            observe.counters.inc(f"hooks.{hook_name}.payload_invalid")
            if not self.catch_errors:
                raise
            self.logger.error("[hooks] %s payload rejected: %s", hook_name, exc)
            return None
        started = time.perf_counter()
        calls: list[_Call] = []
        try:
            if hook_name in MODIFYING_HOOKS:
                return await self._run_modifying(hook_name, entries, ev, cx, calls)
            await self._run_void(hook_name, entries, ev, cx, calls)
            return None
        finally:
            self._record(hook_name, started, calls)

    async def _run_void(
        self, hook_name: str, entries: tuple[_Entry, ...], ev: HostModel, cx: HostModel, calls: list[_Call]
    ) -> None:
        if len(entries) == 1:
            calls.append(await self._call(entries[0], ev, cx))
        else:
            calls.extend(await asyncio.gather(*(self._call(e, ev, cx) for e in entries)))
        for entry, call in zip(entries, calls, strict=True):
            if call.error is not None:
                self._handle_error(hook_name, entry.reg, call.error)

    async def _run_modifying(
        self, hook_name: str, entries: tuple[_Entry, ...], ev: HostModel, cx: HostModel, calls: list[_Call]
    ) -> dict[str, Any] | None:
        merged: dict[str, Any] | None = None
        for entry in entries:
            call = await self._call(entry, ev, cx)
            calls.append(call)
            if call.error is None:
                call.result, call.error = self._normalise(hook_name, entry.reg, call.result)
                if call.error is not None:
                    call.metric = _replace_outcome(call.metric, "failed", type(call.error).__name__)
            if call.error is not None:
                self._handle_error(hook_name, entry.reg, call.error)
            elif call.result is not None:
                merged = _merge(merged or {}, call.result)
        return merged

    async def _call(self, entry: _Entry, ev: HostModel, cx: HostModel) -> _Call:
        reg = entry.reg
        timeout_ms = self.timeout_for(reg)
        started = time.perf_counter()
        try:
            result = await self._bounded(entry, ev, cx, timeout_ms)
        except Exception as exc:
            outcome: Outcome = "timed_out" if isinstance(exc, HookTimeoutError) else "failed"
            return _Call(_metric(reg, outcome, started, type(exc).__name__), error=exc)
        return _Call(_metric(reg, "ok", started), result=result)

    async def _bounded(self, entry: _Entry, ev: HostModel, cx: HostModel, timeout_ms: int | None) -> Any:
        if timeout_ms is None:
            return await _invoke(entry, ev, cx)
        task = asyncio.ensure_future(_invoke(entry, ev, cx))
        try:
            done, _ = await asyncio.wait({task}, timeout=timeout_ms / 1000)
        except asyncio.CancelledError:
            task.cancel()
            raise
        if task in done:
            return task.result()
        self._abandon(task, entry.reg)
        raise HookTimeoutError(timeout_ms)

    def _abandon(self, task: asyncio.Task[Any], reg: HookRegistration) -> None:
        """Keep a reference to the overrunning task so it can finish; its outcome is only logged."""
        self._late.add(task)

        def done(t: asyncio.Task[Any]) -> None:
            self._late.discard(t)
            if t.cancelled():
                return
            what = "error" if t.exception() is not None else "result"
            observe.counters.inc(f"hooks.{reg.hook_name}.late_discarded")
            self.logger.debug(
                "[hooks] %s handler from %s finished after its budget; late %s discarded",
                reg.hook_name, reg.plugin_id, what,
            )

        task.add_done_callback(done)

    # ------------------------------------------------------------------ results and errors

    def _normalise(
        self, hook_name: str, reg: HookRegistration, result: Any
    ) -> tuple[dict[str, Any] | None, Exception | None]:
        """The handler's result as a camelCase dict of known fields, or a content-free error."""
        if result is None:
            return None, None
        model = HOOK_RESULT_MODELS[hook_name]
        if isinstance(result, BaseModel):
            result = result.model_dump(by_alias=True, exclude_none=True)
        if not isinstance(result, Mapping):
            return None, HookPayloadError(f"result must be a mapping, got {type(result).__name__}")
        unknown = _unknown_keys(model, result)
        if unknown:
            self.logger.debug(
                "[hooks] %s handler from %s returned unknown keys (ignored): %s",
                hook_name, reg.plugin_id, ", ".join(unknown),
            )
        try:
            parsed = model.model_validate(dict(result))
        except ValidationError as exc:
            return None, HookPayloadError(f"invalid result: {describe_validation_error(exc)}")
        return parsed.model_dump(by_alias=True, exclude_none=True), None

    def _handle_error(self, hook_name: str, reg: HookRegistration, exc: BaseException | None) -> None:
        detail = str(exc) if isinstance(exc, ContentFreeError) else type(exc).__name__
        msg = f"[hooks] {hook_name} handler from {reg.plugin_id} failed: {detail}"
        if not self.catch_errors:
            raise HookError(msg, hook_name, reg.plugin_id) from exc
        self.logger.error(msg)
        if exc is not None and not isinstance(exc, ContentFreeError) and exc.__traceback__ is not None:
            frames = "".join(traceback.format_tb(exc.__traceback__))
            self.logger.debug("[hooks] %s handler from %s traceback (message omitted):\n%s",
                              hook_name, reg.plugin_id, frames)

    def _record(self, hook_name: str, started: float, calls: list[_Call]) -> None:
        duration = (time.perf_counter() - started) * 1000
        run = RunMetric(hook_name, duration, tuple(c.metric for c in calls))
        self.metrics.append(run)
        stats = self._stats.setdefault(hook_name, Counter())
        stats["runs"] += 1
        for c in calls:
            stats[c.metric.outcome] += 1
            if c.metric.outcome != "ok":
                observe.counters.inc(f"hooks.{hook_name}.{c.metric.outcome}")
        if observe.log.isEnabledFor(logging.DEBUG):
            observe.emit(
                "hook_run", logging.DEBUG, hook=hook_name, handlers=len(calls), durationMs=round(duration, 3),
                failed=run.count("failed"), timedOut=run.count("timed_out"),
            )

    def _parse(self, hook_name: str, event: Payload, ctx: Payload) -> tuple[HostModel, HostModel]:
        event_model, ctx_model = models_for(hook_name)
        return _coerce(event_model, event, f"{hook_name} event"), _coerce(ctx_model, ctx, f"{hook_name} ctx")

    # ------------------------------------------------------------------ convenience

    async def run_message_received(self, event: Payload, ctx: Payload = None) -> None:
        await self.run(MESSAGE_RECEIVED, event, ctx)

    async def run_message_sent(self, event: Payload, ctx: Payload = None) -> None:
        await self.run(MESSAGE_SENT, event, ctx)

    async def run_session_start(self, event: Payload, ctx: Payload = None) -> None:
        await self.run(SESSION_START, event, ctx)

    async def run_gateway_stop(self, event: Payload = None, ctx: Payload = None) -> None:
        await self.run(GATEWAY_STOP, event, ctx)

    async def run_agent_end(self, event: Payload, ctx: Payload = None) -> None:
        await self.run(AGENT_END, event, ctx)

    async def run_before_prompt_build(self, event: Payload, ctx: Payload = None) -> dict[str, Any]:
        """The merged `{prependContext?, appendContext?, prependSystemContext?, appendSystemContext?,
        systemPrompt?}`; {} when no handler contributed."""
        return await self.run(BEFORE_PROMPT_BUILD, event, ctx) or {}

    async def run_message_sending(self, event: Payload, ctx: Payload = None) -> dict[str, Any]:
        """The merged `{content?, cancel?, cancelReason?}`; {} when no handler changed the reply."""
        return await self.run(MESSAGE_SENDING, event, ctx) or {}

    async def run_llm_output(self, event: Payload, ctx: Payload = None) -> None:
        await self.run(LLM_OUTPUT, event, ctx)

    async def run_session_end(self, event: Payload, ctx: Payload = None) -> None:
        await self.run(SESSION_END, event, ctx)

    def run_sync(self, hook_name: str, event: Payload, ctx: Payload = None) -> dict[str, Any] | None:
        """Blocking `run` for scripts. Handlers run on the runner's own background event loop, so work
        they leave running (late handlers, background tasks) keeps running between calls."""
        try:
            asyncio.get_running_loop()
        except RuntimeError:
            pass
        else:
            raise RuntimeError("run_sync cannot be called from a running event loop; await runner.run(...)")
        with self._loop_lock:
            if self._loop_thread is None:
                self._loop_thread = _LoopThread()
            loop_thread = self._loop_thread
        return loop_thread.submit(self.run(hook_name, event, ctx))

    def close(self) -> None:
        """Stop the background loop used by `run_sync` (pending handler tasks there are cancelled)."""
        with self._loop_lock:
            loop_thread, self._loop_thread = self._loop_thread, None
        if loop_thread is not None:
            loop_thread.stop()

    def __enter__(self) -> HookRunner:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


# --------------------------------------------------------------------------- helpers


def _check_runnable(hook_name: str) -> None:
    check_hook_name(hook_name)
    if hook_name not in VOID_HOOKS and hook_name not in MODIFYING_HOOKS:
        raise ValueError(
            f"the reference runner does not run {hook_name!r} (claiming/synchronous/other modifying hooks "
            "need host-specific semantics); it runs the void hooks and "
            + ", ".join(sorted(MODIFYING_HOOKS))
        )


def _check_timeouts(timeouts: Mapping[str, int]) -> dict[str, int]:
    checked: dict[str, int] = {}
    for hook, ms in timeouts.items():
        if hook != _ALL_HOOKS_KEY:
            check_hook_name(hook)
        value = check_timeout_ms(ms, f"timeouts[{hook!r}]")
        if value is None:
            raise ValueError(f"timeouts[{hook!r}] must be a number of ms, not None")
        checked[hook] = value
    return checked


def _index(registrations: Iterable[HookRegistration]) -> dict[str, tuple[_Entry, ...]]:
    """Per hook, entries sorted by priority descending; `sorted` is stable, so ties keep their order."""
    grouped: dict[str, list[HookRegistration]] = {}
    for reg in registrations:
        check_hook_name(reg.hook_name)
        grouped.setdefault(reg.hook_name, []).append(reg)
    return {
        hook: tuple(_Entry(r, _is_async_callable(r.handler)) for r in sorted(regs, key=lambda r: -r.priority))
        for hook, regs in grouped.items()
    }


def _coerce(model: type[HostModel], value: Payload, what: str) -> HostModel:
    if isinstance(value, model):
        return value
    if value is None:
        value = {}
    elif isinstance(value, BaseModel):
        value = value.model_dump(by_alias=True)
    if not isinstance(value, Mapping):
        raise HookPayloadError(f"{what} must be a mapping, got {type(value).__name__}")
    try:
        return model.model_validate(dict(value))
    except ValidationError as exc:
        raise HookPayloadError(f"invalid {what}: {describe_validation_error(exc)}") from None


def _unknown_keys(model: type[BaseModel], result: Mapping[str, Any]) -> list[str]:
    known = set(model.model_fields) | {f.alias for f in model.model_fields.values() if f.alias}
    return sorted(str(k) for k in result if k not in known)


def _merge(acc: dict[str, Any], result: Mapping[str, Any]) -> dict[str, Any]:
    """OpenClaw's mergeBeforePromptBuild: concatenate text fields, keep the first defined override."""
    for key in CONCAT_RESULT_FIELDS:
        value = result.get(key)
        if value:
            acc[key] = f"{acc[key]}{_SEPARATOR}{value}" if acc.get(key) else value
    for key in FIRST_WINS_RESULT_FIELDS:
        if key in result and key not in acc:
            acc[key] = result[key]
    return acc


def _replace_outcome(metric: HandlerMetric, outcome: Outcome, error_type: str) -> HandlerMetric:
    return HandlerMetric(metric.hook_name, metric.plugin_id, outcome, metric.duration_ms, error_type)


def _metric(
    reg: HookRegistration, outcome: Outcome, started: float, error_type: str | None = None
) -> HandlerMetric:
    elapsed_ms = (time.perf_counter() - started) * 1000
    return HandlerMetric(reg.hook_name, reg.plugin_id, outcome, elapsed_ms, error_type)


async def _invoke(entry: _Entry, ev: HostModel, cx: HostModel) -> Any:
    """Await an async handler directly; run a sync one in a daemon thread (it may block)."""
    if entry.is_async:
        return await entry.reg.handler(ev, cx)
    result = await _in_thread(entry.reg, ev, cx)
    if inspect.isawaitable(result):
        result = await result
    return result


def _in_thread(reg: HookRegistration, ev: HostModel, cx: HostModel) -> asyncio.Future[Any]:
    """A daemon thread, not an executor: an overrunning sync handler must not block shutdown."""
    loop = asyncio.get_running_loop()
    future: asyncio.Future[Any] = loop.create_future()
    context = contextvars.copy_context()

    def settle(result: Any, error: BaseException | None) -> None:
        if future.done():
            return
        if error is not None:
            future.set_exception(error)
        else:
            future.set_result(result)

    def work() -> None:
        result: Any = None
        error: BaseException | None = None
        try:
            result = context.run(reg.handler, ev, cx)
        except Exception as exc:
            error = exc
        except BaseException as exc:  # SystemExit etc. must not leave the future pending forever
            error = RuntimeError(f"handler raised {type(exc).__name__}")
        with contextlib.suppress(RuntimeError):  # the loop is closed: nobody waits any more
            loop.call_soon_threadsafe(settle, result, error)

    threading.Thread(target=work, name=f"hook-{reg.plugin_id}-{reg.hook_name}", daemon=True).start()
    return future


class _LoopThread:
    """A private event loop on a daemon thread, for `HookRunner.run_sync`."""

    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._main, name="hook-runner-loop", daemon=True)
        self._thread.start()

    def _main(self) -> None:
        asyncio.set_event_loop(self.loop)
        try:
            self.loop.run_forever()
        finally:
            pending = asyncio.all_tasks(self.loop)
            for task in pending:
                task.cancel()
            if pending:
                self.loop.run_until_complete(asyncio.wait(pending, timeout=1.0))
            self.loop.close()

    def submit(self, coro: Any) -> Any:
        return asyncio.run_coroutine_threadsafe(coro, self.loop).result()

    def stop(self) -> None:
        self.loop.call_soon_threadsafe(self.loop.stop)
        self._thread.join(timeout=5.0)
