// Spawns `command ...args serve --config FILE --socket PATH`, waits until it listens, restarts it with backoff.

import { spawn } from "node:child_process";
import { createInterface } from "node:readline";

const RESTART_FIRST_MS = 500;
const RESTART_MAX_MS = 30000;
/** A child that stayed up this long resets the backoff. */
const STABLE_MS = 60000;
const HEALTH_POLL_MS = 200;

/** True for the sidecar's ready line: `{"event": "listening", ...}` (or a bare `listening`). */
export function isListeningLine(line) {
  const text = line.trim();
  if (text === "listening") return true;
  if (!text.startsWith("{")) return false;
  try {
    return JSON.parse(text)?.event === "listening";
  } catch {
    return false;
  }
}

export class Supervisor {
  /**
   * @param {object} o
   * @param {string} o.command  executable
   * @param {string[]} o.argv   full argument list
   * @param {number} o.startTimeoutMs  how long a start may take before the child is killed and restarted
   * @param {() => Promise<boolean>} o.healthy  GET /health succeeded (the fallback to the stdout line)
   * @param {() => void} o.onReady  the child accepts connections
   * @param {(stopping: boolean) => void} o.onDown   the child exited (`stopping`: because stop() asked)
   */
  constructor({ command, argv, startTimeoutMs, healthy, onReady, onDown, log }) {
    Object.assign(this, { command, argv, startTimeoutMs, healthy, onReady, onDown, log });
    this.child = null;
    this.stopped = true;
    this.failures = 0;
    this.restartTimer = null;
    this.restarts = 0;
  }

  start() {
    this.stopped = false;
    this.launch();
  }

  get running() {
    return this.child !== null;
  }

  launch() {
    if (this.stopped || this.child) return;
    const startedAt = Date.now();
    let child;
    try {
      child = spawn(this.command, this.argv, { stdio: ["ignore", "pipe", "inherit"], env: process.env });
    } catch (err) {
      this.log.error(`cannot start the sidecar (${err?.code ?? "error"})`);
      this.scheduleRestart();
      return;
    }
    this.child = child;
    const run = { ready: false, readyAt: 0, timer: null, poll: null };
    const ready = () => {
      if (run.ready || this.child !== child) return;
      run.ready = true;
      run.readyAt = Date.now();
      clearTimeout(run.timer);
      clearTimeout(run.poll);
      this.log.info(`sidecar ready (pid ${child.pid}, ${run.readyAt - startedAt} ms)`);
      this.onReady();
    };
    createInterface({ input: child.stdout }).on("line", (line) => {
      if (isListeningLine(line)) ready();
    });
    const poll = async () => {
      if (run.ready || this.child !== child) return;
      if (await this.healthy().catch(() => false)) ready();
      else if (this.child === child && !run.ready) run.poll = setTimeout(poll, HEALTH_POLL_MS);
    };
    run.poll = setTimeout(poll, HEALTH_POLL_MS);
    run.timer = setTimeout(() => {
      if (run.ready) return;
      this.log.warn(`sidecar did not listen within ${this.startTimeoutMs} ms; restarting it`);
      child.kill("SIGKILL");
    }, this.startTimeoutMs);
    child.on("error", (err) => {
      this.log.error(`cannot start the sidecar command (${err?.code ?? "error"})`);
      if (child.pid === undefined) this.exited(child, run, null, null); // never started: no exit event follows
    });
    child.on("exit", (code, signal) => this.exited(child, run, code, signal));
  }

  exited(child, run, code, signal) {
    if (this.child !== child) return;
    this.child = null;
    clearTimeout(run.timer);
    clearTimeout(run.poll);
    this.onDown(this.stopped);
    if (this.stopped) return;
    if (run.ready && Date.now() - run.readyAt >= STABLE_MS) this.failures = 0;
    this.log.warn(`sidecar exited (${signal ? `signal ${signal}` : `code ${code}`}); restarting`);
    this.scheduleRestart();
  }

  scheduleRestart() {
    if (this.stopped || this.restartTimer) return;
    const delay = Math.min(RESTART_FIRST_MS * 2 ** this.failures, RESTART_MAX_MS);
    this.failures += 1;
    this.restarts += 1;
    this.restartTimer = setTimeout(() => {
      this.restartTimer = null;
      this.launch();
    }, delay);
    this.restartTimer.unref?.();
  }

  /** SIGTERM the child and wait for it until `deadline` (epoch ms), then SIGKILL. */
  async stop(deadline) {
    this.stopped = true;
    clearTimeout(this.restartTimer);
    this.restartTimer = null;
    const child = this.child;
    if (!child) return true;
    const exited = new Promise((resolve) => child.once("exit", () => resolve(true)));
    const waitUntil = (ms) =>
      Promise.race([exited, new Promise((resolve) => setTimeout(() => resolve(false), Math.max(0, ms)))]);
    child.kill("SIGTERM");
    if (await waitUntil(deadline - Date.now())) return true;
    this.log.warn("sidecar did not exit in time after SIGTERM; killing it");
    child.kill("SIGKILL");
    return waitUntil(1000);
  }
}
