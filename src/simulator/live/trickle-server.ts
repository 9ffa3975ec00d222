// The node's trickle server (go-livepeer trickle/trickle_server.go, trickle/README.md), mounted
// under /ai/trickle/ on an orchestrator's service port: channels of numbered segments that
// publishers POST and subscribers GET while they are being written.
//   POST   {base}{name}          create (only a channel the node made: otherwise 404, no autocreate)
//   POST   {base}{name}/{seq}    publish segment seq (-1: the next one); answers Lp-Trickle-Seq
//   GET    {base}{name}/{seq}    subscribe: -1 the next write, -2 the current one; 470 when the
//                                segment is not (or no longer) there, with Lp-Trickle-Latest
//   GET    {base}{name}/next     the next seq, in the body and Lp-Trickle-Latest
//   DELETE {base}{name}/{seq}    close that segment;  DELETE {base}{name}: close the channel
// Five segments per channel are kept (maxSegmentsPerStream); a GET one ahead of the write head
// pre-creates the segment and waits; Lp-Trickle-Reset on a POST closes older segments; a channel
// without a new segment for the idle timeout (5 minutes) is swept. The node logs each GET and POST
// with slog; the simulator logs channels created, deleted and swept (slog's lines), not each segment.
import { EventEmitter } from "node:events";
import type { IncomingMessage, ServerResponse } from "node:http";
import { slogLine } from "../ai/slog.ts";
import { type Handler, sendText } from "../http-server.ts";

export const TRICKLE_PATH = "/ai/trickle/";
const MAX_SEGMENTS = 5;
export const TRICKLE_IDLE_TIMEOUT_MS = 5 * 60_000;
const SWEEP_INTERVAL_MS = 60_000;

class Segment {
  readonly chunks: Buffer[] = [];
  closed = false;
  private readonly waiters = new Set<() => void>();
  readonly idx: number;
  constructor(idx: number) {
    this.idx = idx;
  }
  write(data: Buffer): void {
    this.chunks.push(data);
    this.wake();
  }
  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.wake();
  }
  get empty(): boolean {
    return this.chunks.length === 0;
  }
  /** Resolves on the next write or close. */
  changed(): { promise: Promise<void>; cancel: () => void } {
    let wake!: () => void;
    const promise = new Promise<void>((resolve) => (wake = resolve));
    this.waiters.add(wake);
    return { promise, cancel: () => this.waiters.delete(wake) };
  }
  private wake(): void {
    const waiters = [...this.waiters];
    this.waiters.clear();
    for (const w of waiters) w();
  }
}

class Channel {
  readonly segments: (Segment | undefined)[] = new Array(MAX_SEGMENTS);
  nextWrite = 0;
  writeTime = Date.now();
  closed = false;
  readonly name: string;
  readonly mimeType: string;
  constructor(name: string, mimeType: string) {
    this.name = name;
    this.mimeType = mimeType;
  }

  forWrite(seq: number): Segment {
    const idx = seq === -1 ? this.nextWrite : seq;
    const pos = idx % MAX_SEGMENTS;
    const existing = this.segments[pos];
    if (existing?.idx === idx) return existing;
    existing?.close(); // an old segment in its place
    const segment = new Segment(idx);
    this.segments[pos] = segment;
    return segment;
  }

  forRead(seq: number): { segment: Segment | undefined; idx: number; latest: number } {
    let idx = seq;
    if (seq === -1) idx = this.nextWrite;
    else if (seq === -2) idx = this.nextWrite > 0 ? this.nextWrite - 1 : 0;
    const pos = ((idx % MAX_SEGMENTS) + MAX_SEGMENTS) % MAX_SEGMENTS;
    let segment = this.segments[pos];
    const exists = segment?.idx === idx;
    // A read just ahead of the write head waits for it (the first segment may come as 0 or 1).
    if (!exists && (idx === this.nextWrite || (this.nextWrite === 0 && idx === 1)) && !this.closed) {
      segment = new Segment(idx);
      this.segments[pos] = segment;
    }
    return { segment: segment?.idx === idx ? segment : undefined, idx, latest: this.nextWrite };
  }

  close(): void {
    for (const s of this.segments) s?.close();
    this.segments.fill(undefined);
    this.closed = true;
  }
}

export interface TrickleServerOptions {
  log?: (line: string) => void;
  idleTimeoutMs?: number;
  sweepIntervalMs?: number;
}

/** Emits "closed" (name) when a channel is deleted or swept, "segment" (name) when a segment starts arriving. */
export class TrickleServer extends EventEmitter<{ closed: [string]; segment: [string] }> {
  private readonly channels = new Map<string, Channel>();
  private readonly log: (line: string) => void;
  private readonly idleTimeoutMs: number;
  private readonly sweeper: NodeJS.Timeout;

  constructor(options: TrickleServerOptions = {}) {
    super();
    this.setMaxListeners(0); // one "closed" listener per live session
    this.log = options.log ?? (() => {});
    this.idleTimeoutMs = options.idleTimeoutMs ?? TRICKLE_IDLE_TIMEOUT_MS;
    this.sweeper = setInterval(() => this.sweep(), options.sweepIntervalMs ?? SWEEP_INTERVAL_MS);
    this.sweeper.unref();
  }

  /** A channel the node makes itself (trickle.NewLocalPublisher(...).CreateChannel()). */
  create(name: string, mimeType: string): void {
    if (this.channels.has(name)) return;
    this.channels.set(name, new Channel(name, mimeType));
    this.log(slogLine("INFO", "Creating stream", [["stream", name]]));
  }

  has(name: string): boolean {
    return this.channels.has(name);
  }

  names(): string[] {
    return [...this.channels.keys()];
  }

  /** Closes and removes a channel: false when there is none. */
  close(name: string): boolean {
    const channel = this.channels.get(name);
    if (!channel) return false;
    channel.close();
    this.channels.delete(name);
    this.log(slogLine("INFO", "Deleted stream", [["streamName", name]]));
    this.emit("closed", name);
    return true;
  }

  /** Publishes one whole segment at the write head (the node's local publisher Write). */
  write(name: string, data: Buffer): boolean {
    const channel = this.channels.get(name);
    if (!channel) return false;
    const segment = channel.forWrite(-1);
    channel.nextWrite = segment.idx + 1;
    channel.writeTime = Date.now();
    segment.write(data);
    segment.close();
    return true;
  }

  stop(): void {
    clearInterval(this.sweeper);
    for (const name of [...this.channels.keys()]) this.close(name);
  }

  private sweep(): void {
    const now = Date.now();
    for (const channel of [...this.channels.values()]) {
      if (channel.name.startsWith("_") || now - channel.writeTime <= this.idleTimeoutMs) continue;
      this.close(channel.name);
      this.log(slogLine("INFO", "Closed idle channel", [["channel", channel.name]]));
    }
  }

  /** The route for routes[TRICKLE_PATH]. */
  readonly handler: Handler = async (req, res, url) => {
    const rest = decodeURIComponent(url.pathname.slice(TRICKLE_PATH.length));
    const [name = "", seqText, ...more] = rest.split("/");
    if (!name || more.length) return sendText(res, 404, "404 page not found");
    const method = req.method ?? "GET";
    if (seqText === undefined) {
      if (method === "POST") return this.handleCreate(req, res, name);
      if (method === "DELETE") {
        req.resume();
        if (!this.close(name)) return sendText(res, 400, "Invalid stream");
        res.writeHead(200);
        return void res.end();
      }
      return sendText(res, 405, "Method Not Allowed");
    }
    if (method === "GET" && seqText === "next") return this.handleNext(res, name);
    const channel = this.channels.get(name);
    if (!channel) {
      req.resume();
      if (method === "POST" && !isHttp2(req)) res.setHeader("Connection", "close");
      return sendText(res, 404, "Stream not found");
    }
    const seq = goAtoi(seqText);
    if (seq === undefined) {
      req.resume();
      return sendText(res, 400, "Invalid idx");
    }
    if (method === "GET") return this.handleGet(res, channel, seq);
    if (method === "POST") return this.handlePost(req, res, channel, seq);
    if (method === "DELETE") {
      req.resume();
      const segment = channel.segments[seq % MAX_SEGMENTS];
      if (!segment || segment.idx !== seq) return sendText(res, 400, "Nonexistent segment");
      segment.close();
      res.writeHead(200);
      return void res.end();
    }
    return sendText(res, 405, "Method Not Allowed");
  };

  private handleCreate(req: IncomingMessage, res: ServerResponse, name: string): void {
    req.resume();
    if (!this.channels.has(name)) {
      sendText(res, 404, "Stream not found");
      return;
    }
    res.writeHead(200);
    res.end();
  }

  private handleNext(res: ServerResponse, name: string): void {
    const channel = this.channels.get(name);
    if (!channel) {
      sendText(res, 404, "Stream not found");
      return;
    }
    const next = String(channel.nextWrite);
    res.setHeader("Lp-Trickle-Latest", next);
    if (channel.closed) res.setHeader("Lp-Trickle-Closed", "terminated");
    res.writeHead(200);
    res.end(next);
  }

  private async handlePost(req: IncomingMessage, res: ServerResponse, channel: Channel, seq: number) {
    const segment = channel.forWrite(seq);
    if (req.headers["lp-trickle-reset"]) {
      for (const s of channel.segments) if (s && s.idx < segment.idx) s.close();
    }
    let total = 0;
    const body = bodyChunks(req);
    // A preconnected publisher waits for its first byte; the segment closing first ends it.
    for (;;) {
      const closed = segment.changed();
      const next = await Promise.race([body.next(), closed.promise.then(() => "closed" as const)]);
      closed.cancel();
      if (next === "closed") {
        if (total > 0 || !segment.closed) continue;
        body.stop();
        channel.nextWrite = Math.max(channel.nextWrite, segment.idx + 1);
        channel.writeTime = Date.now();
        res.setHeader("Lp-Trickle-Seq", String(segment.idx));
        if (channel.closed) res.setHeader("Lp-Trickle-Closed", "terminated");
        if (!isHttp2(req)) res.setHeader("Connection", "close");
        res.writeHead(200);
        return void res.end();
      }
      if (next.error) {
        segment.close();
        if (!res.headersSent) sendText(res, 500, "Server error");
        return;
      }
      if (next.done) break;
      if (total === 0) {
        channel.nextWrite = segment.idx + 1;
        channel.writeTime = Date.now();
        this.emit("segment", channel.name);
      }
      total += next.value.length;
      segment.write(next.value);
    }
    res.setHeader("Lp-Trickle-Seq", String(segment.idx));
    segment.close();
    res.writeHead(200);
    res.end();
  }

  private async handleGet(res: ServerResponse, channel: Channel, seq: number) {
    const { segment, idx, latest } = channel.forRead(seq);
    if (!segment) {
      res.setHeader("Lp-Trickle-Latest", String(latest));
      res.setHeader("Lp-Trickle-Seq", String(idx));
      if (channel.closed) res.setHeader("Lp-Trickle-Closed", "terminated");
      res.writeHead(channel.closed ? 200 : 470);
      return void res.end("Entry not found");
    }
    let gone = false;
    const closed = new Promise<void>((resolve) =>
      res.once("close", () => {
        gone = true;
        resolve();
      }),
    );
    let sent = 0;
    let read = 0;
    for (;;) {
      if (gone) return;
      if (read < segment.chunks.length) {
        if (sent === 0) {
          if (segment.idx !== latest) res.setHeader("Lp-Trickle-Latest", String(latest));
          res.setHeader("Lp-Trickle-Seq", String(segment.idx));
          res.setHeader("Content-Type", channel.mimeType);
          res.writeHead(200);
        }
        while (read < segment.chunks.length) {
          const chunk = segment.chunks[read++]!;
          sent += chunk.length;
          res.write(chunk);
        }
        continue;
      }
      if (segment.closed) break;
      const changed = segment.changed();
      await Promise.race([changed.promise, closed]);
      changed.cancel();
    }
    if (sent === 0) {
      res.setHeader("Lp-Trickle-Seq", String(segment.idx));
      res.setHeader("Lp-Trickle-Latest", String(channel.nextWrite));
      if (channel.closed) res.setHeader("Lp-Trickle-Closed", "terminated");
      res.writeHead(200);
    }
    res.end();
  }
}

function isHttp2(req: IncomingMessage): boolean {
  return req.httpVersionMajor === 2;
}

/** strconv.Atoi: an optional sign and decimal digits. */
function goAtoi(text: string): number | undefined {
  return /^[+-]?\d{1,15}$/.test(text) ? Number(text) : undefined;
}

type BodyStep = { done: false; value: Buffer; error?: undefined } | { done: true; error?: Error };

/** A request body as pulled chunks (one pending pull at a time), stoppable without reading on. */
function bodyChunks(req: IncomingMessage): { next(): Promise<BodyStep>; stop(): void } {
  const queue: Buffer[] = [];
  let ended = false;
  let error: Error | undefined;
  let wake: (() => void) | undefined;
  const poke = () => {
    const w = wake;
    wake = undefined;
    w?.();
  };
  const onData = (chunk: Buffer) => {
    queue.push(chunk);
    poke();
  };
  const onEnd = () => {
    ended = true;
    poke();
  };
  const onError = (err: Error) => {
    error = err;
    poke();
  };
  req.on("data", onData);
  req.once("end", onEnd);
  req.once("error", onError);
  req.once("aborted", () => onError(new Error("request aborted")));
  return {
    async next(): Promise<BodyStep> {
      for (;;) {
        const chunk = queue.shift();
        if (chunk) return { done: false, value: chunk };
        if (error) return { done: true, error };
        if (ended) return { done: true };
        await new Promise<void>((resolve) => (wake = resolve));
      }
    },
    stop() {
      req.off("data", onData);
      req.off("end", onEnd);
      req.resume();
    },
  };
}
