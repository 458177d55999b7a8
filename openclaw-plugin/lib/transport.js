// HTTP to the sidecar over a Unix socket or TCP, one code path (fetch cannot do Unix sockets).

import http from "node:http";
import https from "node:https";

/** Largest response body read; a before_prompt_build block is a few kilobytes. */
const MAX_RESPONSE_BYTES = 4 * 1024 * 1024;

function fail(code, message) {
  return Object.assign(new Error(message), { code });
}

/** Where requests go: `{socketPath}` or `{url}`; `token` is sent as a bearer token when set. */
export function createTransport({ socketPath, url, token }) {
  let mod = http;
  let base;
  let prefix = "";
  if (url) {
    const u = new URL(url);
    mod = u.protocol === "https:" ? https : http;
    base = { host: u.hostname.replace(/^\[|\]$/g, ""), port: u.port || (mod === https ? 443 : 80) };
    prefix = u.pathname.replace(/\/+$/, "");
  } else {
    base = { socketPath };
  }
  // keepAlive saves a connect per hook call; idle sockets are closed before a server's usual 5 s idle limit.
  const agent = new mod.Agent({ keepAlive: true, maxSockets: 16, timeout: 4000 });
  const headers = { "content-type": "application/json", accept: "application/json" };
  if (token) headers.authorization = `Bearer ${token}`;

  function once(method, path, body, signal) {
    return new Promise((resolve, reject) => {
      let settled = false;
      const settle = (fn, value) => {
        if (!settled) {
          settled = true;
          fn(value);
        }
      };
      const payload = body === undefined ? undefined : Buffer.from(body, "utf8");
      const reqHeaders = payload ? { ...headers, "content-length": payload.length } : headers;
      const req = mod.request(
        { ...base, path: prefix + path, method, agent, signal, headers: reqHeaders },
        (res) => {
          const chunks = [];
          let size = 0;
          res.on("data", (chunk) => {
            size += chunk.length;
            if (size > MAX_RESPONSE_BYTES) req.destroy(fail("ERESPONSETOOLARGE", "response too large"));
            else chunks.push(chunk);
          });
          res.on("end", () =>
            settle(resolve, { status: res.statusCode, text: Buffer.concat(chunks).toString("utf8") }),
          );
          res.on("error", (err) => settle(reject, err));
          res.on("close", () => {
            if (!res.complete) settle(reject, fail("ECONNRESET", "response cut short"));
          });
        },
      );
      req.on("error", (err) => {
        err.reusedSocket = req.reusedSocket;
        settle(reject, err);
      });
      req.end(payload);
    });
  }

  /** One request with a deadline for the whole exchange; a reused keep-alive socket the server just closed is retried once. */
  async function request(method, path, body, timeoutMs) {
    const signal = AbortSignal.timeout(Math.max(1, timeoutMs));
    try {
      return await once(method, path, body, signal);
    } catch (err) {
      if (err?.reusedSocket && err.code === "ECONNRESET" && !signal.aborted) {
        return await once(method, path, body, signal);
      }
      throw err;
    }
  }

  return {
    request,
    describe: url ? `url ${new URL(url).origin}` : "unix socket",
    close: () => agent.destroy(),
  };
}

/** A short, content-free name for a transport error (never its message, which may quote a body). */
export function errorCode(err) {
  if (!err) return "error";
  if (err.name === "AbortError" || err.name === "TimeoutError" || err.code === "ABORT_ERR") return "timeout";
  return String(err.code ?? err.name ?? "error");
}
