// The sidecar service: spawn mode (a fake `serve` command), restart after a crash, stop, spawn: false over TCP.

import assert from "node:assert/strict";
import fs from "node:fs";
import http from "node:http";
import path from "node:path";
import { afterEach, test } from "node:test";
import { fileURLToPath } from "node:url";
import { registerBridge } from "../index.js";
import { fakeApi, fakeSidecar, readJsonl, tempDir, waitFor } from "../testing/helpers.js";

const FAKE = fileURLToPath(new URL("../testing/fake-sidecar.mjs", import.meta.url));
const bridges = [];
const track = (bridge) => (bridges.push(bridge), bridge);
// a failed assertion must not leave a child sidecar behind (it would keep this test process alive)
afterEach(async () => {
  for (const bridge of bridges.splice(0)) await bridge.stop();
});

function spawnSetup(extraArgs = [], sidecar = {}) {
  const dir = tempDir();
  const record = path.join(dir, "record.jsonl");
  const api = fakeApi({
    retrieval: { budgetMs: 1000 },
    storage: { maxFacts: 5 },
    sidecar: { command: process.execPath, args: [FAKE, "--record", record, ...extraArgs], ...sidecar },
  });
  const bridge = track(registerBridge(api));
  const hook = (name) => api.hooks.get(name).handler;
  const ctx = { stateDir: path.join(dir, "state"), logger: api.logger, config: { gateway: { auth: { token: "T" } } } };
  return { api, bridge, hook, record, ctx, dir };
}

const starts = (record) => readJsonl(record).filter((e) => e.kind === "start");
const hookCalls = (record, name) => readJsonl(record).filter((e) => e.kind === "request" && e.path === `/hooks/${name}`);

test("spawn mode: private config file, serve argv, ready line, hooks flow, stop drains and SIGTERMs", async () => {
  const { api, bridge, hook, record, ctx } = spawnSetup();
  const [service] = api.services;
  hook("message_received")({ content: "early", messageId: "m0" }, { channelId: "webchat" });
  await service.start(ctx);
  assert.ok(await bridge.whenReady(20000), "sidecar ready");
  const [start] = starts(record);
  const dir = path.join(ctx.stateDir, "knowledge-engine");
  const socket = path.join(dir, "sidecar.sock");
  assert.deepEqual(start.argv.slice(-7), ["serve", "--config", path.join(dir, "config.json"), "--socket", socket,
    "--parent-pid", String(process.pid)]);
  assert.equal(start.configMode, "600");
  assert.deepEqual(start.config, {
    retrieval: { budgetMs: 1000 },
    storage: { maxFacts: 5 },
    workspace: path.join(dir, "agents", "{agentId}"), // message hooks carry no workspaceDir
  });
  assert.equal(fs.statSync(dir).mode & 0o777, 0o700);

  assert.deepEqual(await hook("before_prompt_build")({ prompt: "q" }, { agentId: "main" }),
    { appendSystemContext: `FAKE-KNOWLEDGE pid=${start.pid}` });
  await waitFor(() => hookCalls(record, "message_received").length === 1, "the early message delivered");

  await service.stop(ctx);
  const tail = readJsonl(record).filter((e) => e.kind !== "start").map((e) => e.path ?? e.signal);
  assert.deepEqual(tail.slice(-2), ["/drain", "SIGTERM"]);
  assert.throws(() => process.kill(start.pid, 0), "the child has exited");
  assert.ok(api.logs.some(([, m]) => m.includes("drain (service stop): HTTP 200, drained=true")));
});

test("a crashed sidecar is restarted; calls made while it was down are delivered to the new one", async () => {
  const { api, bridge, hook, record, ctx } = spawnSetup();
  const [service] = api.services;
  await service.start(ctx);
  assert.ok(await bridge.whenReady(20000));
  const first = starts(record)[0].pid;
  process.kill(first, "SIGKILL");
  await waitFor(() => !bridge.forwarder.available, "the exit noticed");
  hook("agent_end")({ messages: [{ role: "assistant", content: "reply" }], runId: "r1" }, { agentId: "main" });
  await waitFor(() => starts(record).length === 2, "a second sidecar started");
  await waitFor(() => hookCalls(record, "agent_end").length === 1, "agent_end delivered after the restart");
  assert.notEqual(hookCalls(record, "agent_end")[0].pid, first);
  assert.ok(api.logs.some(([lvl, m]) => lvl === "warn" && m.includes("sidecar exited (signal SIGKILL)")));
  await service.stop(ctx);
});

test("readiness without the stdout line: GET /health is polled", async () => {
  const { api, bridge, ctx } = spawnSetup(["--no-listening-line"]);
  await api.services[0].start(ctx);
  assert.ok(await bridge.whenReady(20000));
  await api.services[0].stop(ctx);
});

test("a child that ignores SIGTERM is killed when the stop budget runs out", async () => {
  const { api, bridge, record, ctx } = spawnSetup(["--ignore-sigterm"]);
  await api.services[0].start(ctx);
  assert.ok(await bridge.whenReady(20000));
  const { pid } = starts(record)[0];
  await api.services[0].stop(ctx);
  assert.ok(readJsonl(record).some((e) => e.signal === "SIGTERM"), "SIGTERM was sent first");
  assert.throws(() => process.kill(pid, 0), "then SIGKILL ended it");
  assert.ok(api.logs.some(([lvl, m]) => lvl === "warn" && m.includes("killing it")));
});

test("a missing command is logged, retried with backoff, and never breaks a hook", async () => {
  const dir = tempDir();
  const api = fakeApi({ sidecar: { command: path.join(dir, "no-such-knowledge-engine") } });
  const bridge = track(registerBridge(api));
  await api.services[0].start({ stateDir: dir, logger: api.logger });
  await waitFor(() => api.logs.some(([lvl, m]) => lvl === "error" && m.includes("ENOENT")), "the spawn error logged");
  assert.equal(await api.hooks.get("before_prompt_build").handler({ prompt: "q" }, {}), undefined);
  assert.equal(api.hooks.get("message_received").handler({ content: "x" }, {}), undefined);
  await waitFor(() => bridge.supervisor.restarts >= 2, "retried");
  await api.services[0].stop({});
});

test("spawn: false with a url connects over TCP with the bearer token from the environment", async () => {
  const seen = [];
  const server = http.createServer((req, res) => {
    seen.push({ path: req.url, authorization: req.headers.authorization });
    res.setHeader("content-type", "application/json");
    if (req.url === "/hooks/before_prompt_build") res.end(JSON.stringify({ result: { prependSystemContext: "TCP" } }));
    else if (req.url === "/drain") res.end(JSON.stringify({ drained: true, pending: 0 }));
    else res.end(JSON.stringify({ status: "ok", result: null }));
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  process.env.KNOWLEDGE_ENGINE_SIDECAR_TOKEN = "tok-123";
  try {
    const api = fakeApi({ sidecar: { spawn: false, url: `http://127.0.0.1:${server.address().port}` } });
    const bridge = track(registerBridge(api));
    await api.services[0].start({ stateDir: tempDir(), logger: api.logger });
    assert.ok(await bridge.whenReady(10000));
    assert.deepEqual(await api.hooks.get("before_prompt_build").handler({ prompt: "q" }, {}), { prependSystemContext: "TCP" });
    await api.services[0].stop({});
    assert.ok(seen.some((s) => s.path === "/drain"));
    assert.ok(seen.every((s) => s.authorization === "Bearer tok-123"));
    assert.ok(!api.logs.some(([, m]) => m.includes("tok-123")));
  } finally {
    delete process.env.KNOWLEDGE_ENGINE_SIDECAR_TOKEN;
    server.closeAllConnections?.();
    await new Promise((resolve) => server.close(resolve));
  }
});

test("a reload: calls that reach the stopped old registration are delivered by the new one", async () => {
  const dir = tempDir();
  const oldApi = fakeApi({ sidecar: { spawn: false, socketPath: path.join(dir, "old.sock") } });
  track(registerBridge(oldApi));
  await oldApi.services[0].start({ stateDir: dir, logger: oldApi.logger });
  await oldApi.services[0].stop({});
  // the gateway stopped the old service; its handlers still run until the new registration replaces them
  for (let i = 0; i < 3; i += 1) {
    oldApi.hooks.get("message_received").handler({ content: `m${i}`, messageId: `m${i}` }, { channelId: "webchat" });
  }
  const socketPath = path.join(dir, "new.sock");
  const sidecar = await fakeSidecar(socketPath);
  try {
    const newApi = fakeApi({ sidecar: { spawn: false, socketPath } });
    track(registerBridge(newApi));
    await newApi.services[0].start({ stateDir: dir, logger: newApi.logger });
    newApi.hooks.get("message_received").handler({ content: "m3", messageId: "m3" }, { channelId: "webchat" });
    await waitFor(() => sidecar.hookCalls("message_received").length === 4, "all four delivered by the new bridge");
    assert.deepEqual(sidecar.hookCalls("message_received").map((c) => c.body.event.messageId), ["m0", "m1", "m2", "m3"]);
    assert.ok(newApi.logs.some(([, m]) => m.includes("took over 3 hook calls")));
    await newApi.services[0].stop({});
  } finally {
    await sidecar.close();
  }
});

test("before any service starts, a discovery registration's calls wait in the full one and are delivered", async () => {
  const holding = Symbol.for("knowledge-engine.openclaw-plugin.holding-bridge");
  const liveKey = Symbol.for("knowledge-engine.openclaw-plugin.live-bridge");
  delete globalThis[holding];
  delete globalThis[liveKey]; // a fresh gateway process
  const { api, bridge, record, ctx } = spawnSetup();
  const discovery = fakeApi(api.pluginConfig, "discovery");
  track(registerBridge(discovery));
  discovery.hooks.get("agent_end").handler({ messages: [], runId: "early" }, { agentId: "main" });
  await api.services[0].start(ctx);
  assert.ok(await bridge.whenReady(20000));
  await waitFor(() => hookCalls(record, "agent_end").some((c) => c.body.event.runId === "early"), "early agent_end");
  await api.services[0].stop(ctx);
});

test("a workspace the user names is kept as it is", async () => {
  const { sidecarEngineConfig } = await import("../lib/settings.js");
  assert.deepEqual(sidecarEngineConfig({ workspaceRoot: "/srv/ke" }, "/state/knowledge-engine"), { workspaceRoot: "/srv/ke" });
  assert.deepEqual(sidecarEngineConfig({}, "/s/knowledge-engine"), { workspace: "/s/knowledge-engine/agents/{agentId}" });
});
