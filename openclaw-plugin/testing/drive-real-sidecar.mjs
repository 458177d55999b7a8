#!/usr/bin/env node
// Drives the plugin against a real `knowledge-engine serve` for tests/test_openclaw_plugin_sidecar.py:
// register with a fake gateway api, start the service (spawn mode), send a conversation through the
// hooks, drain, ask before_prompt_build, stop the service; print one JSON line with what happened.
// Usage: node drive-real-sidecar.mjs PLUGIN_CONFIG_JSON STATE_DIR MESSAGES_JSON QUESTION

import { registerBridge } from "../index.js";
import { fakeApi, waitFor } from "./helpers.js";

const [configJson, stateDir, messagesJson, question] = process.argv.slice(2);
const api = fakeApi(JSON.parse(configJson));
const bridge = registerBridge(api);
const hook = (name) => api.hooks.get(name).handler;
const session = "agent:main:webchat-1";
const out = { ready: false };
try {
  await api.services[0].start({ stateDir, logger: api.logger, config: { gateway: { auth: { token: "GW-TOKEN" } } } });
  out.ready = await bridge.whenReady(180000);
  out.pid = bridge.supervisor?.child?.pid ?? null;
  JSON.parse(messagesJson).forEach((text, i) => {
    // the real gateway's message_received: no agentId, no workspaceDir; the agent is in the session key
    hook("message_received")(
      { from: "user-1", content: text, messageId: `m-${i}`, sessionKey: session, metadata: { senderName: "Dana" } },
      { channelId: "webchat", sessionKey: session, abortSignal: new AbortController().signal },
    );
  });
  await waitFor(() => bridge.forwarder.queue.length === 0, "messages delivered", 60000);
  await bridge.drain("test", 120000);
  out.result = await hook("before_prompt_build")(
    { prompt: question, messages: [{ role: "user", content: question }] },
    { agentId: "main", sessionKey: session, trigger: "user", config: { token: "GW-TOKEN" } },
  );
  out.stats = bridge.forwarder.stats;
} catch (err) {
  out.error = String(err?.stack ?? err);
} finally {
  await api.services[0].stop({});
  if (out.pid) {
    try {
      process.kill(out.pid, 0);
      out.exited = false;
    } catch {
      out.exited = true;
    }
  }
  out.logs = api.logs;
  process.stdout.write(`${JSON.stringify(out)}\n`);
}
