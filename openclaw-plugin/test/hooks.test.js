// The hook handlers against fake sidecars: down, hung, slow, crashing, garbage, recovering.

import assert from "node:assert/strict";
import path from "node:path";
import { test } from "node:test";
import plugin from "../index.js";
import { fakeApi, fakeSidecar, tempDir, waitFor } from "../testing/helpers.js";

const SECRET_TEXT = "Dana moved to Lisbon";

function setup(sidecar = {}) {
  const dir = tempDir();
  const socketPath = path.join(dir, "sidecar.sock");
  const api = fakeApi({ retrieval: { budgetMs: 300 }, sidecar: { spawn: false, socketPath, ...sidecar } });
  plugin.register(api);
  const hook = (name) => api.hooks.get(name).handler;
  return { api, dir, socketPath, hook };
}

function promptEvent() {
  return [
    { prompt: "Where does Dana live?", messages: [] },
    { agentId: "main", sessionKey: "agent:main:s1", workspaceDir: "/ws", hookInvocation: { x: 1 }, config: { token: "T" } },
  ];
}

function received(i) {
  return [
    { from: "u1", content: `${SECRET_TEXT} #${i}`, messageId: `m${i}`, sessionKey: "agent:main:s1",
      metadata: { apiKey: "sk-should-not-leave", provider: "webchat" } },
    { channelId: "webchat", sessionKey: "agent:main:s1", abortSignal: new AbortController().signal, getCron: () => 1 },
  ];
}

function assertContentFreeLogs(api) {
  for (const [, line] of api.logs) assert.ok(!line.includes(SECRET_TEXT) && !line.includes("Lisbon"), line);
}

test("full mode registers the hooks with the engine's priorities and one service; discovery the hooks only", () => {
  const { api } = setup({ promptTimeoutMs: 2000 });
  const expected = {
    session_start: 200, message_received: 100, message_sending: 100, message_sent: 100, llm_output: 100,
    agent_end: 90, before_prompt_build: 50, session_end: 100, gateway_stop: 900,
  };
  assert.deepEqual(Object.fromEntries([...api.hooks].map(([n, h]) => [n, h.opts.priority])), expected);
  assert.equal(api.hooks.get("before_prompt_build").opts.timeoutMs, 2500);
  assert.equal(api.hooks.get("gateway_stop").opts.timeoutMs, 5000);
  assert.deepEqual(api.services.map((s) => s.id), ["knowledge-engine-sidecar"]);

  const discovery = fakeApi({}, "discovery");
  plugin.register(discovery);
  assert.equal(discovery.hooks.size, Object.keys(expected).length); // the gateway runs agent hooks from here
  assert.equal(discovery.services.length, 0);
});

test("promptTimeoutMs defaults to the retrieval budget + 1000 and stays below the gateway's 15 s", () => {
  const a = fakeApi({ retrieval: { budgetMs: 2000 }, sidecar: { spawn: false } });
  plugin.register(a);
  assert.equal(a.hooks.get("before_prompt_build").opts.timeoutMs, 3500);
  const b = fakeApi({ retrieval: { budgetMs: 60000 }, sidecar: { spawn: false } });
  plugin.register(b);
  assert.ok(b.hooks.get("before_prompt_build").opts.timeoutMs < 15000);
  const c = fakeApi(undefined);
  plugin.register(c);
  assert.equal(c.hooks.get("before_prompt_build").opts.timeoutMs, 4500 + 1000 + 500);
});

test("sidecar down: every hook returns nothing at once and never throws", async () => {
  const { api, hook } = setup();
  const result = hook("message_received")(...received(1));
  assert.equal(result, undefined, "message hooks return synchronously, not a promise");
  const started = Date.now();
  assert.equal(await hook("before_prompt_build")(...promptEvent()), undefined);
  assert.ok(Date.now() - started < 1300 + 2000, "before_prompt_build returned within its timeout and a margin");
  for (const name of ["session_start", "message_sending", "message_sent", "llm_output", "agent_end", "session_end"]) {
    assert.equal(hook(name)({ content: "x" }, {}), undefined);
  }
  await hook("gateway_stop")({ reason: "gateway stopping" }, { port: 1 });
  assertContentFreeLogs(api);
});

test("healthy sidecar: the injection comes back and secrets, config and functions stay home", async () => {
  const { socketPath, hook, api } = setup({ promptTimeoutMs: 5000 });
  const sidecar = await fakeSidecar(socketPath);
  try {
    await waitFor(async () => (await hook("before_prompt_build")(...promptEvent())) !== undefined, "injection");
    assert.deepEqual(await hook("before_prompt_build")(...promptEvent()),
      { appendSystemContext: "KNOWN: Dana lives in Lisbon" });
    hook("message_received")(...received(1));
    await waitFor(() => sidecar.hookCalls("message_received").length === 1, "message_received delivered");
    const sent = sidecar.hookCalls("message_received")[0].body;
    assert.equal(sent.event.content, `${SECRET_TEXT} #1`);
    assert.deepEqual(sent.event.metadata, { provider: "webchat" });
    assert.deepEqual(sent.ctx, { channelId: "webchat", sessionKey: "agent:main:s1" });
    const prompt = sidecar.hookCalls("before_prompt_build")[0].body;
    assert.deepEqual(prompt.ctx, { agentId: "main", sessionKey: "agent:main:s1", workspaceDir: "/ws" });
    const raw = JSON.stringify(sidecar.requests);
    for (const leaked of ["sk-should-not-leave", "hookInvocation", "abortSignal", "getCron", '"config"']) {
      assert.ok(!raw.includes(leaked), leaked);
    }
    assertContentFreeLogs(api);
  } finally {
    await sidecar.close();
  }
});

test("hung sidecar: before_prompt_build gives up within its timeout; message hooks still return at once", async () => {
  const { socketPath, hook } = setup({ promptTimeoutMs: 400, hookTimeoutMs: 300 });
  const sidecar = await fakeSidecar(socketPath, (req) => req.url !== "/health"); // answers health only
  try {
    await waitFor(() => { hook("session_start")({}, {}); return sidecar.hookCalls("session_start").length; },
      "sidecar reachable");
    const started = Date.now();
    assert.equal(await hook("before_prompt_build")(...promptEvent()), undefined);
    const elapsed = Date.now() - started;
    assert.ok(elapsed >= 350 && elapsed < 400 + 2000, `returned after ${elapsed} ms`);
    assert.equal(hook("message_received")(...received(1)), undefined);
  } finally {
    await sidecar.close();
  }
});

test("slow sidecar: an answer inside the timeout is used, one after it is not", async () => {
  let delay = 150;
  const { socketPath, hook } = setup({ promptTimeoutMs: 1000 });
  const sidecar = await fakeSidecar(socketPath, (req, body, res) => {
    if (req.url !== "/hooks/before_prompt_build") return false;
    setTimeout(() => res.end(JSON.stringify({ result: { prependContext: "SLOW-BUT-IN-TIME" } })), delay);
    return true;
  });
  try {
    await waitFor(async () => (await hook("before_prompt_build")(...promptEvent())) !== undefined, "slow answer");
    delay = 2500;
    assert.equal(await hook("before_prompt_build")(...promptEvent()), undefined);
    delay = 100;
    assert.deepEqual(await hook("before_prompt_build")(...promptEvent()), { prependContext: "SLOW-BUT-IN-TIME" });
  } finally {
    await sidecar.close();
  }
});

test("crashing (connection reset) and garbage answers: nothing injected, message calls kept and retried", async () => {
  let mode = "crash";
  const { socketPath, hook, api } = setup({ promptTimeoutMs: 1000, hookTimeoutMs: 500 });
  const sidecar = await fakeSidecar(socketPath, (req, body, res) => {
    if (req.url === "/health" || mode === "ok") return false;
    if (mode === "garbage" && req.url === "/hooks/before_prompt_build") res.end("{not json");
    else req.socket.destroy();
    return true;
  });
  const delivered = (id) => sidecar.hookCalls("message_received")
    .some((c) => c.body.event.messageId === id && !c.answeredByBehaviour);
  try {
    hook("message_received")(...received(1));
    await waitFor(async () => {
      assert.equal(await hook("before_prompt_build")(...promptEvent()), undefined);
      return sidecar.hookCalls("before_prompt_build").length >= 1 && sidecar.hookCalls("message_received").length >= 2;
    }, "a reset before_prompt_build and a reset, retried message_received");
    mode = "garbage";
    await waitFor(async () => {
      const before = sidecar.hookCalls("before_prompt_build").length;
      assert.equal(await hook("before_prompt_build")(...promptEvent()), undefined);
      return sidecar.hookCalls("before_prompt_build").length > before;
    }, "a garbage before_prompt_build");
    assert.ok(!delivered("m1"));
    mode = "ok";
    await waitFor(() => delivered("m1"), "the reset message delivered once the sidecar behaves");
    assertContentFreeLogs(api);
  } finally {
    await sidecar.close();
  }
});

test("message hooks sent while the sidecar is down are delivered in order when it comes up", async () => {
  const { socketPath, hook, api } = setup();
  for (let i = 0; i < 20; i += 1) {
    hook(i % 2 ? "agent_end" : "message_received")(...received(i));
  }
  const sidecar = await fakeSidecar(socketPath);
  try {
    await waitFor(() => sidecar.requests.length === 20, "20 buffered calls delivered");
    assert.deepEqual(sidecar.requests.map((r) => r.body.event.messageId),
      Array.from({ length: 20 }, (_, i) => `m${i}`));
    assert.deepEqual(sidecar.requests.map((r) => r.path.slice(7)),
      Array.from({ length: 20 }, (_, i) => (i % 2 ? "agent_end" : "message_received")));
    assert.ok(api.logs.some(([lvl, m]) => lvl === "info" && m.includes("delivering 20 buffered")));
    assertContentFreeLogs(api);
  } finally {
    await sidecar.close();
  }
});

test("a full buffer drops and counts calls, and says so without content", async () => {
  const { socketPath, hook, api } = setup({ maxBuffered: 3 });
  for (let i = 0; i < 5; i += 1) hook("message_received")(...received(i));
  assert.ok(api.logs.some(([lvl, m]) => lvl === "warn" && m.includes("dropped 1 hook calls")));
  const sidecar = await fakeSidecar(socketPath);
  try {
    await waitFor(() => sidecar.requests.length === 3, "the 3 buffered calls delivered");
    assert.deepEqual(sidecar.requests.map((r) => r.body.event.messageId), ["m0", "m1", "m2"]);
    await waitFor(() => api.logs.some(([, m]) => m.includes("2 dropped while it was unavailable")), "drop summary");
    assertContentFreeLogs(api);
  } finally {
    await sidecar.close();
  }
});

test("gateway_stop delivers the buffer first, forwards itself, and drains on a plugin replacement", async () => {
  const { socketPath, hook } = setup();
  const sidecar = await fakeSidecar(socketPath);
  try {
    await waitFor(async () => (await hook("before_prompt_build")(...promptEvent())) !== undefined, "reachable");
    hook("message_received")(...received(7));
    await hook("gateway_stop")({ reason: "plugin replacement" }, { port: 18789, config: { token: "x" } });
    const paths = sidecar.requests.map((r) => r.path).filter((p) => p !== "/hooks/before_prompt_build");
    assert.deepEqual(paths, ["/hooks/message_received", "/hooks/gateway_stop", "/drain"]);
    assert.deepEqual(sidecar.hookCalls("gateway_stop")[0].body, { event: { reason: "plugin replacement" }, ctx: { port: 18789 } });
    assert.equal(sidecar.requests.at(-1).body.reason, "plugin replacement");
    assert.ok(sidecar.requests.at(-1).body.timeoutMs <= 4000);
  } finally {
    await sidecar.close();
  }
});

test("a hook the sidecar does not handle (404) is logged once and skipped, the others still flow", async () => {
  const { socketPath, hook, api } = setup();
  const sidecar = await fakeSidecar(socketPath, (req, body, res) => {
    if (req.url !== "/hooks/session_end") return false;
    res.statusCode = 404;
    res.end(JSON.stringify({ error: "unknown hook" }));
    return true;
  });
  try {
    for (let i = 0; i < 3; i += 1) {
      hook("session_end")({ sessionId: `s${i}` }, {});
      hook("message_received")(...received(i));
    }
    await waitFor(() => sidecar.hookCalls("message_received").length === 3, "message hooks delivered");
    assert.ok(sidecar.hookCalls("session_end").length >= 1);
    const notes = api.logs.filter(([, m]) => m.includes("does not handle session_end"));
    assert.equal(notes.length, 1);
    assert.ok(!api.logs.some(([lvl]) => lvl === "warn"));
  } finally {
    await sidecar.close();
  }
});
