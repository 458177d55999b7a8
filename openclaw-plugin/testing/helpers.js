// Shared pieces of the plugin's node:test suites: a fake gateway `api` and fake sidecars.

import fs from "node:fs";
import http from "node:http";
import os from "node:os";
import path from "node:path";

const madeDirs = [];
// node:test runs each file in its own process: its temp dirs go when that process ends, passed or failed
process.on("exit", () => {
  for (const dir of madeDirs) fs.rmSync(dir, { recursive: true, force: true });
});

export function tempDir() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "ke-plugin-"));
  madeDirs.push(dir);
  return dir;
}

/** A fake gateway plugin api that records hook registrations, services and log lines. */
export function fakeApi(pluginConfig, registrationMode = "full") {
  const logs = [];
  const api = {
    registrationMode,
    pluginConfig,
    hooks: new Map(),
    services: [],
    logs,
    logger: {
      debug: (m) => logs.push(["debug", m]),
      info: (m) => logs.push(["info", m]),
      warn: (m) => logs.push(["warn", m]),
      error: (m) => logs.push(["error", m]),
    },
    on(name, handler, opts) {
      api.hooks.set(name, { handler, opts });
    },
    registerService(service) {
      api.services.push(service);
    },
  };
  return api;
}

/**
 * A fake sidecar on a Unix socket. `behave(req, body, res)` answers hook calls (default: a
 * before_prompt_build injection, null for the rest); every request is recorded in `requests`.
 */
export async function fakeSidecar(socketPath, behave) {
  const requests = [];
  const server = http.createServer((req, res) => {
    const chunks = [];
    req.on("data", (c) => chunks.push(c));
    req.on("end", () => {
      const text = Buffer.concat(chunks).toString("utf8");
      const body = text ? JSON.parse(text) : null;
      const entry = { method: req.method, path: req.url, body, authorization: req.headers.authorization };
      if (req.url !== "/health") requests.push(entry);
      if (behave && behave(req, body, res) !== false) {
        entry.answeredByBehaviour = true;
        return;
      }
      res.setHeader("content-type", "application/json");
      if (req.url === "/health") return res.end(JSON.stringify({ status: "ok", ready: true }));
      if (req.url === "/drain") return res.end(JSON.stringify({ drained: true, pending: 0 }));
      if (req.url === "/hooks/before_prompt_build") {
        return res.end(JSON.stringify({ result: { appendSystemContext: "KNOWN: Dana lives in Lisbon", other: 1 } }));
      }
      return res.end(JSON.stringify({ result: null }));
    });
  });
  const sockets = new Set();
  server.on("connection", (s) => {
    sockets.add(s);
    s.on("close", () => sockets.delete(s));
  });
  await new Promise((resolve) => server.listen(socketPath, resolve));
  return {
    requests,
    hookCalls: (name) => requests.filter((r) => r.path === `/hooks/${name}`),
    async close() {
      for (const s of sockets) s.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

/** Wait for `check()` to be truthy, polling; throws after a generous deadline. */
export async function waitFor(check, what, timeoutMs = 15000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** Every line of a JSONL file (missing file: none). */
export function readJsonl(file) {
  if (!fs.existsSync(file)) return [];
  return fs.readFileSync(file, "utf8").split("\n").filter(Boolean).map((l) => JSON.parse(l));
}
