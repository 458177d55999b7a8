// The bridge's settings from the plugin config: `sidecar` is ours, everything else is the engine's.

import path from "node:path";
import { isPlainObject } from "./sanitize.js";

/** knowledge_engine.config.RetrievalConfig.budget_ms's default (a pytest test keeps them equal). */
export const ENGINE_DEFAULT_BUDGET_MS = 4500;
/** The gateway gives before_prompt_build 15 s; our call and its hook timeout stay below that. */
export const MAX_PROMPT_TIMEOUT_MS = 14000;
/** Replacement stops are cut off by the gateway after 5 s. */
export const MAX_DRAIN_TIMEOUT_MS = 4500;
export const TOKEN_ENV = "KNOWLEDGE_ENGINE_SIDECAR_TOKEN";

function int(value, fallback, min = 0) {
  return Number.isInteger(value) && value >= min ? value : fallback;
}

function retrievalBudget(config) {
  const budget = isPlainObject(config.retrieval) ? config.retrieval.budgetMs : undefined;
  return int(budget ?? config.retrievalBudgetMs, ENGINE_DEFAULT_BUDGET_MS, 1);
}

/** Resolved settings; `socketPath` stays undefined until the service knows the state dir. */
export function resolveSettings(pluginConfig, env = process.env) {
  const config = isPlainObject(pluginConfig) ? pluginConfig : {};
  const { sidecar, ...engineConfig } = config;
  const sc = isPlainObject(sidecar) ? sidecar : {};
  const promptDefault = retrievalBudget(config) + 1000;
  return {
    engineConfig,
    spawn: sc.spawn !== false,
    command: typeof sc.command === "string" && sc.command ? sc.command : "knowledge-engine",
    args: Array.isArray(sc.args) ? sc.args.filter((a) => typeof a === "string") : [],
    socketPath: typeof sc.socketPath === "string" && sc.socketPath ? sc.socketPath : undefined,
    url: typeof sc.url === "string" && sc.url ? sc.url : undefined,
    token: env[TOKEN_ENV] || undefined,
    startTimeoutMs: int(sc.startTimeoutMs, 60000, 1),
    hookTimeoutMs: int(sc.hookTimeoutMs, 1500, 1),
    promptTimeoutMs: Math.min(int(sc.promptTimeoutMs, promptDefault, 1), MAX_PROMPT_TIMEOUT_MS),
    drainTimeoutMs: Math.min(int(sc.drainTimeoutMs, 4000, 1), MAX_DRAIN_TIMEOUT_MS),
    maxBuffered: int(sc.maxBuffered, 10000, 0),
  };
}

const WORKSPACE_KEYS = ["workspace", "workspaceTemplate", "workspaceRoot", "workspace_template", "workspace_root"];

/**
 * The engine config the sidecar gets. Unless the user names a folder, every agent's knowledge lives
 * in `<sidecarDir>/agents/<agentId>`: the gateway's message hooks carry no `workspaceDir`, so a
 * folder derived from it would be unknown for a session's first message.
 */
export function sidecarEngineConfig(engineConfig, dir) {
  if (WORKSPACE_KEYS.some((k) => engineConfig[k] !== undefined)) return engineConfig;
  return { ...engineConfig, workspace: path.join(dir, "agents", "{agentId}") };
}

/** `<stateDir>/knowledge-engine`: the config file and the default socket live there. */
export function sidecarDir(stateDir) {
  return path.join(stateDir, "knowledge-engine");
}
