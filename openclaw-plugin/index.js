// knowledge-engine for OpenClaw: forwards the gateway's hooks to the Python sidecar
// (`knowledge-engine serve`) and returns its injected knowledge from before_prompt_build.
// Plain ESM, no dependencies: the engine's logic stays in Python.

import {
  Bridge,
  GATEWAY_STOP_PRIORITY,
  GATEWAY_STOP_TIMEOUT_MS,
  MESSAGE_HOOKS,
  PROMPT_PRIORITY,
} from "./lib/bridge.js";

export const SERVICE_ID = "knowledge-engine-sidecar";

// The gateway runs agent-run hooks (before_prompt_build, agent_end, llm_output) from its `discovery`
// registration, a separate module instance whose service never starts: the bridge whose service started
// is shared process-wide, so every registration's handlers reach the running sidecar.
const LIVE_BRIDGE = Symbol.for("knowledge-engine.openclaw-plugin.live-bridge");
// Before any service started, a registration that cannot reach a sidecar itself (spawn mode) buffers in
// the first such bridge of the process, which is the `full` one whose service will start: nothing a
// discovery registration receives early is stranded in a bridge that never connects.
const HOLDING_BRIDGE = Symbol.for("knowledge-engine.openclaw-plugin.holding-bridge");
const live = (own) => globalThis[LIVE_BRIDGE] ?? (own.transport ? own : (globalThis[HOLDING_BRIDGE] ??= own));

/** Hook handlers and the service on `api`; every handler catches everything and never delays the turn. */
export function registerBridge(api) {
  const bridge = new Bridge({ pluginConfig: api.pluginConfig, logger: api.logger });
  for (const [name, priority] of MESSAGE_HOOKS) {
    api.on(
      name,
      (event, ctx) => {
        try {
          live(bridge).send(name, event, ctx);
        } catch (err) {
          bridge.log.warn(`${name}: not forwarded (${err?.name ?? "error"})`);
        }
        return undefined;
      },
      { priority },
    );
  }
  api.on(
    "before_prompt_build",
    async (event, ctx) => {
      try {
        return await live(bridge).prompt(event, ctx);
      } catch {
        return undefined;
      }
    },
    { priority: PROMPT_PRIORITY, timeoutMs: bridge.settings.promptTimeoutMs + 500 },
  );
  api.on(
    "gateway_stop",
    async (event, ctx) => {
      try {
        await live(bridge).gatewayStop(event, ctx);
      } catch {
        // shutting down: nothing to report to
      }
      return undefined;
    },
    { priority: GATEWAY_STOP_PRIORITY, timeoutMs: GATEWAY_STOP_TIMEOUT_MS },
  );
  if (api.registrationMode === "discovery") return bridge;
  api.registerService({
    id: SERVICE_ID,
    start: (ctx) => {
      const previous = globalThis[LIVE_BRIDGE];
      globalThis[LIVE_BRIDGE] = bridge;
      try {
        bridge.adopt(previous); // calls that reached the stopped old bridge during a reload
        bridge.adopt(globalThis[HOLDING_BRIDGE]); // calls received before any service started
      } catch {
        // never block the start
      }
      return bridge.start(ctx);
    },
    stop: () => bridge.stop(),
  });
  return bridge;
}

const plugin = {
  id: "knowledge-engine",
  name: "Knowledge Engine",
  description:
    "Turns conversations into durable per-agent knowledge and injects the relevant slice into each prompt.",
  register(api) {
    // Hooks in `full` and `discovery` (agent runs use the latter); only `full` starts the service.
    if (api.registrationMode !== undefined && !["full", "discovery"].includes(api.registrationMode)) return;
    try {
      registerBridge(api);
    } catch (err) {
      api.logger?.error?.(`knowledge-engine: registration failed (${err?.name ?? "error"})`);
    }
  },
};

export default plugin;
