import assert from "node:assert/strict";
import { test } from "node:test";
import { hookBody, jsonSafe, MAX_DEPTH } from "../lib/sanitize.js";

class Handle {
  constructor() {
    this.secretish = "inside a class";
  }
}

test("config, host internals, functions and class instances are never forwarded", () => {
  const ctx = {
    port: 18789,
    config: { gateway: { auth: { token: "probe-token-123" } } },
    abortSignal: new AbortController().signal,
    getCron: () => ({}),
    hookInvocation: { id: "x" },
    callback() {},
    handle: new Handle(),
    map: new Map([["a", 1]]),
    buffer: Buffer.from("raw"),
    big: 10n,
    sym: Symbol("s"),
    nan: Number.NaN,
    when: new Date(Date.UTC(2026, 11, 1)),
    agentId: "main",
  };
  assert.deepEqual(jsonSafe(ctx), { port: 18789, when: "2026-12-01T00:00:00.000Z", agentId: "main" });
});

test("secret-looking keys are dropped at any depth; token counts are kept", () => {
  const event = {
    metadata: {
      token: "t1", authToken: "t2", outboundToken: "t3", apiKey: "k1", api_key: "k2", password: "p",
      clientSecret: "s", Authorization: "Bearer x", cookie: "c", credentials: { user: "u" }, privateKey: "pk",
      keep: "yes",
    },
    usage: { totalTokens: 12, input: 3 },
    contextTokenBudget: 128000,
  };
  const out = jsonSafe(event);
  assert.deepEqual(out.metadata, { keep: "yes" });
  assert.deepEqual(out.usage, { totalTokens: 12, input: 3 });
  assert.equal(out.contextTokenBudget, 128000);
  assert.ok(!JSON.stringify(out).match(/t1|t2|t3|k1|k2|Bearer/));
});

test("agent_end's nested messages survive; cycles and excessive depth are cut", () => {
  const messages = [
    { role: "user", content: [{ type: "text", text: "Dana moved to Lisbon." }], timestamp: 1 },
    { role: "assistant", content: [{ type: "text", text: "Noted." }], usage: { totalTokens: 3 } },
  ];
  const event = { messages, success: true, runId: "r1" };
  event.self = event;
  const out = jsonSafe(event);
  assert.deepEqual(out.messages, messages);
  assert.equal(out.self, undefined);

  let deep = { leaf: "x" };
  for (let i = 0; i < MAX_DEPTH + 5; i += 1) deep = { deep };
  const cut = JSON.stringify(jsonSafe(deep));
  assert.ok(!cut.includes("leaf"));
  assert.equal(jsonSafe([1, () => 2, new Handle(), "s"]).length, 2);
});

test("hookBody serialises at once: later mutation by the host does not reach the sidecar", () => {
  const event = { content: "first" };
  const body = hookBody(event, { channelId: "webchat", config: { x: 1 } });
  event.content = "changed";
  assert.deepEqual(JSON.parse(body), { event: { content: "first" }, ctx: { channelId: "webchat" } });
  assert.deepEqual(JSON.parse(hookBody(undefined, null)), { event: {}, ctx: {} });
});

test("a history is forwarded from a few messages before its last user message", async () => {
  const { historyTail, hookBody, HISTORY_CONTEXT } = await import("../lib/sanitize.js");
  const history = Array.from({ length: 50 }, (_, i) => ({ role: i % 5 === 0 ? "user" : "assistant", content: `m${i}` }));
  const tail = historyTail(history);
  assert.equal(tail[0].content, `m${45 - HISTORY_CONTEXT}`); // the last user message is m45
  assert.equal(tail.at(-1).content, "m49");
  const noUser = Array.from({ length: 300 }, (_, i) => ({ role: "assistant", content: `a${i}` }));
  assert.equal(historyTail(noUser).length, 200);
  const body = JSON.parse(hookBody({ messages: history, success: true }, {}));
  assert.equal(body.event.messages.length, tail.length);
  assert.equal(history.length, 50); // the host's own array is left alone
});
