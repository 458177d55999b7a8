#!/usr/bin/env node
// A stand-in for `knowledge-engine serve` in the plugin's tests: the same CLI shape and HTTP API,
// recording every request (one JSON line each) to the file given with --record.
// Usage: node fake-sidecar.mjs --record FILE [--no-listening-line] [--ignore-sigterm] serve --config FILE --socket PATH

import fs from "node:fs";
import http from "node:http";

const argv = process.argv.slice(2);
const opt = (name) => (argv.includes(name) ? argv[argv.indexOf(name) + 1] : undefined);
const record = opt("--record");
const socketPath = opt("--socket");
const configFile = opt("--config");
const log = (entry) => fs.appendFileSync(record, `${JSON.stringify({ pid: process.pid, ...entry })}\n`);

log({ kind: "start", argv, configMode: (fs.statSync(configFile).mode & 0o777).toString(8),
  config: JSON.parse(fs.readFileSync(configFile, "utf8")) });

const server = http.createServer((req, res) => {
  const chunks = [];
  req.on("data", (c) => chunks.push(c));
  req.on("end", () => {
    const text = Buffer.concat(chunks).toString("utf8");
    log({ kind: "request", method: req.method, path: req.url, body: text ? JSON.parse(text) : null,
      authorization: req.headers.authorization ?? null });
    res.setHeader("content-type", "application/json");
    if (req.url === "/health") return res.end(JSON.stringify({ status: "ok", ready: true, pid: process.pid }));
    if (req.url === "/drain") return res.end(JSON.stringify({ drained: true, pending: 0 }));
    if (req.url === "/hooks/before_prompt_build") {
      return res.end(JSON.stringify({ result: { appendSystemContext: `FAKE-KNOWLEDGE pid=${process.pid}` } }));
    }
    return res.end(JSON.stringify({ result: null }));
  });
});

try { fs.unlinkSync(socketPath); } catch {}
server.listen(socketPath, () => {
  if (!argv.includes("--no-listening-line")) {
    process.stdout.write(`${JSON.stringify({ event: "listening", socket: socketPath, port: null, pid: process.pid })}\n`);
  }
});
// never outlive the test process that spawned it (through the plugin), whatever happened there
const parent = process.ppid;
setInterval(() => {
  if (process.ppid !== parent) process.exit(0);
}, 250).unref();
process.on("SIGTERM", () => {
  log({ kind: "signal", signal: "SIGTERM" });
  if (argv.includes("--ignore-sigterm")) return; // a sidecar stuck in its shutdown
  server.close();
  process.exit(0);
});
