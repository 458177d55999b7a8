// Fire-and-forget delivery of hook calls, in order, with a bounded buffer while the sidecar is away.
//
// The gateway never waits: a call is queued and the handler returns. One pump sends the queue
// head-first; a transport failure marks the sidecar unavailable, keeps the call, and starts
// health probes; when /health answers again the queue is delivered in its original order.

import { errorCode } from "./transport.js";

/** Attempts per call before it is given up (a call the sidecar keeps failing must not block the rest). */
const MAX_ATTEMPTS = 8;
/** Wait before retrying a call that failed while /health still answered (doubles per attempt). */
const RETRY_FIRST_MS = 250;
const RETRY_MAX_MS = 10000;
/** Bytes kept in the buffer besides the count limit: agent_end carries the whole session history. */
const MAX_BUFFERED_BYTES = 64 * 1024 * 1024;
/** Statuses that will not improve on retry: the call is dropped and counted. */
const PERMANENT = new Set([400, 405, 413, 422]);
/** The sidecar does not handle this hook (an older engine): not an error, not retried. */
const NOT_HANDLED = 404;
const PROBE_FIRST_MS = 100;
const PROBE_MAX_MS = 2000;

export class Forwarder {
  constructor({ log, maxBuffered, timeoutMs }) {
    this.log = log;
    this.maxBuffered = maxBuffered;
    this.timeoutMs = timeoutMs;
    this.transport = null;
    this.queue = [];
    this.bytes = 0;
    this.up = false;
    this.pumping = false;
    this.closed = false;
    this.probeTimer = null;
    this.pumpTimer = null;
    this.probeDelay = PROBE_FIRST_MS;
    this.stats = { sent: 0, dropped: 0, rejected: 0, failedAttempts: 0, notHandled: 0 };
    /** Hooks the current sidecar answered 404 for: skipped until it is restarted. */
    this.unhandled = new Set();
    this.droppedWhileDown = 0;
  }

  /** Start talking to a sidecar; `up` says whether it is known to be ready (else probe for it). */
  setTransport(transport, up) {
    this.transport = transport;
    if (up) this.markUp();
    else this.markDown(null);
  }

  /** Forget the transport (service stopped): calls are still buffered, nothing is sent or probed. */
  detach() {
    this.transport = null;
    this.up = false;
    this.clearProbe();
  }

  get available() {
    return this.up && this.transport !== null && !this.closed;
  }

  /** Queue one serialised call; never throws, never waits. */
  enqueue(hook, body) {
    if (this.closed) return;
    if (this.unhandled.has(hook)) {
      this.stats.notHandled += 1;
      return;
    }
    if (this.queue.length >= this.maxBuffered || this.bytes + body.length > MAX_BUFFERED_BYTES) {
      this.stats.dropped += 1;
      this.droppedWhileDown += 1;
      if (this.stats.dropped === 1 || this.stats.dropped % 1000 === 0) {
        this.log.warn(
          `hook buffer full (${this.queue.length} calls): dropped ${this.stats.dropped} hook calls so far`,
        );
      }
      return;
    }
    this.queue.push({ hook, body, attempts: 0, notBefore: 0 });
    this.bytes += body.length;
    // the request is built on the next turn of the event loop, not on the gateway's hook path
    if (this.up) setImmediate(() => void this.pump());
  }

  /**
   * Take over the calls a replaced (stopped) forwarder still buffers, ahead of our own: a message that
   * arrived between the old service's stop and this one's start is delivered, not lost with the old bridge.
   */
  adopt(other) {
    if (!other || other === this || other.pumping || other.available || !other.queue.length) return 0;
    const items = other.queue.splice(0).map((item) => ({ ...item, notBefore: 0 }));
    other.bytes = 0;
    this.queue.unshift(...items);
    this.bytes += items.reduce((sum, item) => sum + item.body.length, 0);
    this.log.info(`took over ${items.length} hook calls buffered by the previous registration`);
    if (this.up) void this.pump();
    return items.length;
  }

  markUp() {
    if (this.closed || this.transport === null) return;
    this.clearProbe();
    this.probeDelay = PROBE_FIRST_MS;
    if (!this.up) {
      this.up = true;
      this.unhandled.clear(); // perhaps a newer sidecar
      const dropped = this.droppedWhileDown;
      this.droppedWhileDown = 0;
      if (this.queue.length || dropped) {
        this.log.info(
          `sidecar available: delivering ${this.queue.length} buffered hook calls` +
            (dropped ? ` (${dropped} dropped while it was unavailable)` : ""),
        );
      }
    }
    void this.pump();
  }

  /** Mark unavailable (reason logged once per outage, content-free) and probe /health until it answers. */
  markDown(reason) {
    if (this.up && reason) this.log.warn(`sidecar unavailable (${reason}); buffering hook calls`);
    this.up = false;
    this.scheduleProbe();
  }

  scheduleProbe() {
    if (this.closed || this.probeTimer || this.transport === null) return;
    this.probeTimer = setTimeout(() => {
      this.probeTimer = null;
      void this.probe();
    }, this.probeDelay);
    this.probeTimer.unref?.();
    this.probeDelay = Math.min(this.probeDelay * 2, PROBE_MAX_MS);
  }

  clearProbe() {
    if (this.probeTimer) clearTimeout(this.probeTimer);
    this.probeTimer = null;
  }

  async probe() {
    if (this.closed || this.up || this.transport === null) return;
    try {
      const res = await this.transport.request("GET", "/health", undefined, Math.min(this.timeoutMs, 1000));
      if (res.status === 200) {
        this.markUp();
        return;
      }
    } catch {
      // still away
    }
    this.scheduleProbe();
  }

  async pump() {
    if (this.pumping) return;
    this.pumping = true;
    try {
      while (this.available && this.queue.length) {
        const wait = this.queue[0].notBefore - Date.now();
        if (wait > 0) {
          this.schedulePump(wait);
          break;
        }
        if (!(await this.sendHead())) break;
      }
    } finally {
      this.pumping = false;
    }
  }

  schedulePump(wait) {
    if (this.pumpTimer) return;
    this.pumpTimer = setTimeout(() => {
      this.pumpTimer = null;
      void this.pump();
    }, wait);
    this.pumpTimer.unref?.();
  }

  /** Send the oldest call; false when the sidecar is (now) unavailable. */
  async sendHead() {
    const item = this.queue[0];
    let status;
    let reason;
    try {
      status = (await this.transport.request("POST", `/hooks/${item.hook}`, item.body, this.timeoutMs)).status;
    } catch (err) {
      reason = errorCode(err);
    }
    if (status >= 200 && status < 300) {
      this.shift();
      this.stats.sent += 1;
      return true;
    }
    if (status === NOT_HANDLED) {
      this.shift();
      this.stats.notHandled += 1;
      if (!this.unhandled.has(item.hook)) this.log.info(`the sidecar does not handle ${item.hook}; not forwarding it`);
      this.unhandled.add(item.hook);
      return true;
    }
    if (PERMANENT.has(status)) {
      this.shift();
      this.stats.rejected += 1;
      this.log.warn(`sidecar rejected a ${item.hook} call (HTTP ${status}); ${this.stats.rejected} rejected so far`);
      return true;
    }
    this.stats.failedAttempts += 1;
    item.attempts += 1;
    item.notBefore = Date.now() + Math.min(RETRY_FIRST_MS * 2 ** (item.attempts - 1), RETRY_MAX_MS);
    if (item.attempts >= MAX_ATTEMPTS) {
      this.shift();
      this.stats.dropped += 1;
      this.log.warn(`gave up a ${item.hook} call after ${MAX_ATTEMPTS} attempts; ${this.stats.dropped} dropped so far`);
    }
    this.markDown(reason ?? `HTTP ${status}`);
    return false;
  }

  shift() {
    const item = this.queue.shift();
    if (item) this.bytes -= item.body.length;
  }

  /** Wait until every buffered call is delivered or `deadline` (epoch ms) passes; true when empty. */
  async flush(deadline) {
    if (this.available) void this.pump();
    while (this.queue.length && Date.now() < deadline && !this.closed) {
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    return this.queue.length === 0;
  }

  /** Stop probing and sending; what is still buffered is reported (count only) and released. */
  close() {
    if (this.closed) return;
    this.closed = true;
    this.clearProbe();
    clearTimeout(this.pumpTimer);
    if (this.queue.length) this.log.warn(`closing with ${this.queue.length} undelivered hook calls`);
  }
}
