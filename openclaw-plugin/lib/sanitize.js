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

/** The request body for POST /hooks/<name>, serialised now so later mutation by the host cannot leak in. */
export function hookBody(event, ctx) {
  const safeEvent = jsonSafe(event);
  const safeCtx = jsonSafe(ctx);
  return JSON.stringify({
    event: isPlainObject(safeEvent) ? safeEvent : {},
    ctx: isPlainObject(safeCtx) ? safeCtx : {},
  });
}

export { isPlainObject };
