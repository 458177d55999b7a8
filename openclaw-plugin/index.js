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

/** Hook handlers and the service on `api`; every handler catches everything and never delays the turn. */
export function registerBridge(api) {
  const bridge = new Bridge({ pluginConfig: api.pluginConfig, logger: api.logger });
  for (const [name, priority] of MESSAGE_HOOKS) {
    api.on(
      name,
      (event, ctx) => {
        try {
          bridge.send(name, event, ctx);
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
        return await bridge.prompt(event, ctx);
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
        await bridge.gatewayStop(event, ctx);
      } catch {
        // shutting down: nothing to report to
      }
      return undefined;
    },
    { priority: GATEWAY_STOP_PRIORITY, timeoutMs: GATEWAY_STOP_TIMEOUT_MS },
  );
  api.registerService({
    id: SERVICE_ID,
    start: (ctx) => bridge.start(ctx),
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
    // Only the gateway's live registration starts anything; discovery and metadata passes return at once.
    if (api.registrationMode !== undefined && api.registrationMode !== "full") return;
    try {
      registerBridge(api);
    } catch (err) {
      api.logger?.error?.(`knowledge-engine: registration failed (${err?.name ?? "error"})`);
    }
  },
};

export default plugin;
