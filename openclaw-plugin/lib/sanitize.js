// The JSON-safe part of a hook's event or context: what may leave the gateway process.
//
// The gateway's contexts hold live objects (abort signals, cron handles, the whole gateway
// config with its auth token); none of it may reach the sidecar. Only plain data is kept.

/** Keys never forwarded, at any depth: host internals and the gateway config. */
export const DROPPED_KEYS = new Set(["config", "abortSignal", "getCron", "hookInvocation"]);

/** Key names that look like credentials (authToken, apiKey, password, ...). */
export const SECRET_KEY =
  /token$|api[-_]?key|passw(or)?d|secret|authori[sz]ation|cookie|credential|private[-_]?key|bearer/i;

/** Nesting kept; deeper values are dropped (agent_end's messages need about 5 levels). */
export const MAX_DEPTH = 12;

function isPlainObject(value) {
  if (value === null || typeof value !== "object") return false;
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

function scalar(value) {
  switch (typeof value) {
    case "string":
    case "boolean":
      return value;
    case "number":
      return Number.isFinite(value) ? value : undefined;
    default:
      return undefined;
  }
}

/**
 * A copy of `value` with only strings, finite numbers, booleans, null, arrays and plain
 * objects (Dates become ISO strings); functions, class instances, cycles, dropped and
 * secret-looking keys, and anything deeper than MAX_DEPTH are left out.
 */
export function jsonSafe(value, depth = 0, ancestors = new WeakSet()) {
  if (value === null) return null;
  if (typeof value !== "object") return scalar(value);
  if (value instanceof Date) return Number.isNaN(value.getTime()) ? undefined : value.toISOString();
  if (depth >= MAX_DEPTH || ancestors.has(value)) return undefined;
  if (!Array.isArray(value) && !isPlainObject(value)) return undefined;
  ancestors.add(value);
  try {
    if (Array.isArray(value)) {
      const out = [];
      for (const item of value) {
        const safe = jsonSafe(item, depth + 1, ancestors);
        if (safe !== undefined) out.push(safe);
      }
      return out;
    }
    const out = {};
    for (const key of Object.keys(value)) {
      if (DROPPED_KEYS.has(key) || SECRET_KEY.test(key)) continue;
      const safe = jsonSafe(value[key], depth + 1, ancestors);
      if (safe !== undefined) out[key] = safe;
    }
    return out;
  } finally {
    ancestors.delete(value);
  }
}

/** Messages kept before the last user message of a history (a restarted sidecar catches up from them). */
export const HISTORY_CONTEXT = 8;
/** A history is never forwarded longer than this (the engine walks back at most this far). */
export const HISTORY_CAP = 200;

/**
 * The tail of a session history that matters to the engine: the current turn (from the last user
 * message) plus a few messages before it. `agent_end` and `before_prompt_build` carry the whole
 * history on every turn; copying all of it would put the session's length on the gateway's hook path.
 */
export function historyTail(messages) {
  if (!Array.isArray(messages)) return messages;
  let last = messages.length - 1;
  while (last >= 0 && messages[last]?.role !== "user") last -= 1;
  const from = last < 0 ? 0 : last - HISTORY_CONTEXT;
  return messages.slice(Math.max(0, from, messages.length - HISTORY_CAP));
}

/** The request body for POST /hooks/<name>, serialised now so later mutation by the host cannot leak in. */
export function hookBody(event, ctx) {
  if (isPlainObject(event) && Array.isArray(event.messages)) {
    event = { ...event, messages: historyTail(event.messages) };
  }
  const safeEvent = jsonSafe(event);
  const safeCtx = jsonSafe(ctx);
  return JSON.stringify({
    event: isPlainObject(safeEvent) ? safeEvent : {},
    ctx: isPlainObject(safeCtx) ? safeCtx : {},
  });
}

export { isPlainObject };
