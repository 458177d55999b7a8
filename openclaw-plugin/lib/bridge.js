// The bridge: hook handlers and the sidecar service for one registration of the plugin.

import fs from "node:fs/promises";
import path from "node:path";
import { Forwarder } from "./forwarder.js";
import { hookBody, isPlainObject } from "./sanitize.js";
import { resolveSettings, sidecarDir, sidecarEngineConfig } from "./settings.js";
import { Supervisor } from "./supervisor.js";
import { createTransport, errorCode } from "./transport.js";

/** Hooks the gateway fires and forgets from our side: [name, priority] (the engine's priorities). */
export const MESSAGE_HOOKS = [
  ["session_start", 200],
  ["message_received", 100],
  ["message_sending", 100],
  ["message_sent", 100],
  ["llm_output", 100],
  ["agent_end", 90],
  ["session_end", 100],
];
export const PROMPT_PRIORITY = 50;
export const GATEWAY_STOP_PRIORITY = 900;
/** The gateway's gateway_stop budget; our own work ends before it. */
export const GATEWAY_STOP_TIMEOUT_MS = 5000;
const STOP_BUDGET_MS = 4700;
const PROMPT_FIELDS = ["prependSystemContext", "appendSystemContext", "prependContext", "appendContext"];
/** Longest Unix socket path (sun_path is 108 bytes on Linux, 104 on macOS). */
const MAX_SOCKET_PATH = 103;

function wrapLogger(logger) {
  const sink = logger ?? {};
  const call = (level, fallback) => (msg) => {
    try {
      (sink[level] ?? sink[fallback] ?? (() => {})).call(sink, `knowledge-engine: ${msg}`);
    } catch {
      // a logger must never break a hook
    }
  };
  return { debug: call("debug", "info"), info: call("info"), warn: call("warn"), error: call("error") };
}

/** The four prompt fields of a sidecar result that are strings, or undefined when there are none. */
export function promptResult(result) {
  if (!isPlainObject(result)) return undefined;
  const out = {};
  for (const field of PROMPT_FIELDS) {
    if (typeof result[field] === "string" && result[field]) out[field] = result[field];
  }
  return Object.keys(out).length ? out : undefined;
}

async function writePrivate(file, text) {
  const tmp = `${file}.${process.pid}.tmp`;
  await fs.writeFile(tmp, text, { mode: 0o600 });
  await fs.chmod(tmp, 0o600);
  await fs.rename(tmp, file);
}

export class Bridge {
  constructor({ pluginConfig, logger }) {
    this.log = wrapLogger(logger);
    this.settings = resolveSettings(pluginConfig);
    const { maxBuffered, hookTimeoutMs, spawn, url, socketPath } = this.settings;
    this.forwarder = new Forwarder({ log: this.log, maxBuffered, timeoutMs: hookTimeoutMs });
    this.transport = null;
    this.supervisor = null;
    if (!spawn && (url || socketPath)) this.connect({ url, socketPath });
  }

  connect({ url, socketPath }) {
    this.transport?.close();
    this.transport = createTransport({ url, socketPath: url ? undefined : socketPath, token: this.settings.token });
    this.forwarder.setTransport(this.transport, false);
    this.log.info(`connecting to the sidecar over ${this.transport.describe}`);
  }

  /** Fire-and-forget: serialise now, deliver in the background (buffered while the sidecar is away). */
  send(hook, event, ctx) {
    this.forwarder.enqueue(hook, hookBody(event, ctx));
  }

  /** before_prompt_build: the sidecar's injection, or undefined on any error or timeout. */
  async prompt(event, ctx) {
    if (!this.forwarder.available) return undefined;
    const { promptTimeoutMs } = this.settings;
    const body = hookBody(event, ctx);
    try {
      const res = await this.transport.request("POST", "/hooks/before_prompt_build", body, promptTimeoutMs);
      if (res.status !== 200) {
        this.log.warn(`before_prompt_build: sidecar answered HTTP ${res.status}; nothing injected`);
        return undefined;
      }
      return promptResult(JSON.parse(res.text)?.result);
    } catch (err) {
      const code = errorCode(err);
      this.log.warn(`before_prompt_build: ${code}; nothing injected`);
      if (code !== "timeout" && err?.name !== "SyntaxError") this.forwarder.markDown(code);
      return undefined;
    }
  }

  /** gateway_stop: deliver what is buffered, forward the hook, and on a plugin replacement drain and stop. */
  async gatewayStop(event, ctx) {
    const deadline = Date.now() + STOP_BUDGET_MS;
    const reason = isPlainObject(event) ? event.reason : undefined;
    if (this.forwarder.available) {
      await this.forwarder.flush(Math.min(deadline - 3000, Date.now() + 1000));
      try {
        const res = await this.transport.request(
          "POST", "/hooks/gateway_stop", hookBody(event, ctx), deadline - Date.now() - 500);
        if (res.status !== 200) this.log.warn(`gateway_stop: sidecar answered HTTP ${res.status}`);
      } catch (err) {
        this.log.warn(`gateway_stop: ${errorCode(err)}`);
      }
    }
    if (reason === "plugin replacement") await this.drainAndStop("plugin replacement", deadline);
  }

  /** POST /drain within the budget, then (spawn mode) stop the child. */
  async drainAndStop(reason, deadline) {
    if (this.transport && this.forwarder.available) {
      await this.forwarder.flush(Math.min(Date.now() + 1000, deadline - this.settings.drainTimeoutMs - 300));
      const timeoutMs = Math.min(this.settings.drainTimeoutMs, deadline - Date.now() - 300);
      if (timeoutMs > 0) await this.drain(reason, timeoutMs);
    }
    if (this.supervisor) {
      await this.supervisor.stop(deadline);
      this.supervisor = null;
      this.forwarder.detach();
      this.transport?.close();
      this.transport = null;
    }
  }

  async drain(reason, timeoutMs) {
    try {
      const res = await this.transport.request(
        "POST", "/drain", JSON.stringify({ timeoutMs, reason }), timeoutMs + 300);
      const body = res.status === 200 ? JSON.parse(res.text) : {};
      this.log.info(`drain (${reason}): HTTP ${res.status}, drained=${body?.drained}, pending=${body?.pending}`);
    } catch (err) {
      this.log.warn(`drain (${reason}): ${errorCode(err)}`);
    }
  }

  /** Service start: spawn and supervise the sidecar, or connect to the user's. Never throws. */
  async start(ctx) {
    try {
      const dir = sidecarDir(ctx?.stateDir ?? ".");
      const { spawn, url } = this.settings;
      const socketPath = this.settings.socketPath ?? path.join(dir, "sidecar.sock");
      if (!spawn) {
        if (!this.transport) this.connect({ url, socketPath });
        return;
      }
      if (url) this.log.warn("sidecar.url is used only with spawn: false; spawning on the Unix socket");
      if (Buffer.byteLength(socketPath) > MAX_SOCKET_PATH) {
        this.log.warn(`socket path is ${Buffer.byteLength(socketPath)} bytes, longer than Unix sockets allow; set sidecar.socketPath`);
      }
      await fs.mkdir(path.dirname(socketPath), { recursive: true, mode: 0o700 });
      await fs.mkdir(dir, { recursive: true, mode: 0o700 });
      const configFile = path.join(dir, "config.json");
      await writePrivate(configFile, JSON.stringify(sidecarEngineConfig(this.settings.engineConfig, dir), null, 2));
      this.connect({ socketPath });
      this.startSupervisor(configFile, socketPath);
    } catch (err) {
      this.log.error(`sidecar service could not start (${errorCode(err)})`);
    }
  }

  startSupervisor(configFile, socketPath) {
    const { command, args, startTimeoutMs } = this.settings;
    const transport = this.transport;
    this.supervisor = new Supervisor({
      command,
      // --parent-pid: a gateway killed with SIGKILL leaves no sidecar holding the workspace behind
      argv: [...args, "serve", "--config", configFile, "--socket", socketPath, "--parent-pid", String(process.pid)],
      startTimeoutMs,
      log: this.log,
      healthy: async () => (await transport.request("GET", "/health", undefined, 1000)).status === 200,
      onReady: () => this.forwarder.markUp(),
      onDown: (stopping) => this.forwarder.markDown(stopping ? null : "sidecar exited"),
    });
    this.supervisor.start();
  }

  /** Deliver what a replaced bridge (the previous registration, now stopped) still buffers. */
  adopt(previous) {
    return previous && previous !== this ? this.forwarder.adopt(previous.forwarder) : 0;
  }

  /** Service stop: drain within the budget; in spawn mode SIGTERM the child (SIGKILL after the budget). */
  async stop() {
    try {
      await this.drainAndStop("service stop", Date.now() + STOP_BUDGET_MS);
    } catch (err) {
      this.log.warn(`sidecar service stop failed (${errorCode(err)})`);
    }
  }

  /** Resolves true once the sidecar is reachable (tests, diagnostics), false after `timeoutMs`. */
  whenReady(timeoutMs) {
    if (this.forwarder.available) return Promise.resolve(true);
    return new Promise((resolve) => {
      const timer = setTimeout(() => resolve(this.forwarder.available), timeoutMs);
      const poll = setInterval(() => {
        if (this.forwarder.available) {
          clearTimeout(timer);
          clearInterval(poll);
          resolve(true);
        }
      }, 20);
      timer.unref?.();
      setTimeout(() => clearInterval(poll), timeoutMs).unref?.();
    });
  }
}
