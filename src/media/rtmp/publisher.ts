// Publishes the synthetic test stream over RTMP (rtmp://host:port/<app>/<name>), as an encoder
// does: handshake, connect, createStream, publish, metadata, the AVC sequence header, then one
// video message per picture (paced in real time unless asked not to), then FCUnpublish and
// deleteStream. A refused publish rejects with the server's onStatus code and description.
import { connect, type Socket } from "node:net";
import { TestStream, type TestStreamOptions } from "../test-stream.ts";
import { type Amf0Value, decodeAmf0, encodeAmf0 } from "./amf0.ts";
import { ChunkReader, ChunkWriter, controlMessage, MESSAGE, type RtmpMessage } from "./chunks.ts";
import { avcConfigRecord, lengthPrefixed, videoTag } from "./flv-media.ts";
import { clientHandshake, clientHello } from "./handshake.ts";

export interface RtmpPublishOptions extends TestStreamOptions {
  /** rtmp://host:port/<app>/<stream name>, e.g. rtmp://127.0.0.1:1935/live/demo */
  url: string;
  /** How many segments' worth of pictures (default 5). */
  segments?: number;
  /** Pace pictures in real time (default true). */
  realtime?: boolean;
  signal?: AbortSignal;
  /** How long to wait for each server answer (default 10 s). */
  timeoutMs?: number;
}

const CSID = { command: 3, stream: 4, video: 6 } as const;

export async function publishRtmp(options: RtmpPublishOptions): Promise<{ pictures: number }> {
  const target = new URL(options.url);
  const parts = target.pathname.replace(/^\/+/, "").split("/");
  const name = parts.pop() ?? "";
  const app = parts.join("/");
  if (target.protocol !== "rtmp:" || !app || !name) {
    throw new Error(
      `${options.url}: give rtmp://host:port/<app>/<stream name>, e.g. rtmp://127.0.0.1:1935/live/demo`,
    );
  }
  const link = await RtmpLink.open(target.hostname, Number(target.port || 1935), options.timeoutMs ?? 10_000);
  try {
    const tcUrl = `rtmp://${target.host}/${app}`;
    link.command(0, [
      "connect",
      1,
      { app, flashVer: "FMLE/3.0 (compatible; livepeer-operator)", tcUrl, type: "nonprivate" },
    ]);
    await link.answer(1);
    link.command(0, ["releaseStream", 2, null, name]);
    link.command(0, ["FCPublish", 3, null, name]);
    link.command(0, ["createStream", 4, null]);
    const created = await link.answer(4);
    const streamId = typeof created[3] === "number" ? created[3] : 1;
    link.command(streamId, ["publish", 5, null, name, "live"], CSID.stream);
    await link.published();

    const stream = new TestStream(options);
    link.send(CSID.stream, {
      type: MESSAGE.amf0Data,
      streamId,
      timestamp: 0,
      payload: encodeAmf0([
        "@setDataFrame",
        "onMetaData",
        { width: stream.width, height: stream.height, framerate: stream.fps, videocodecid: 7 },
      ]),
    });
    let pictures = 0;
    let configured = false;
    const started = performance.now();
    for (let index = 0; index < (options.segments ?? 5) && !options.signal?.aborted; index++) {
      for (const frame of stream.frames(index)) {
        const nal = (type: number) => frame.nals.find((n) => (n[0]! & 0x1f) === type);
        if (!configured) {
          link.send(CSID.video, {
            type: MESSAGE.video,
            streamId,
            timestamp: 0,
            payload: videoTag(true, 0, avcConfigRecord(nal(7)!, nal(8)!)),
          });
          configured = true;
        }
        const slices = frame.nals.filter((n) => ![7, 8, 9].includes(n[0]! & 0x1f));
        if (options.realtime ?? true) {
          const wait = frame.timeMs - (performance.now() - started);
          if (wait > 0) await new Promise((r) => setTimeout(r, wait));
        }
        link.send(CSID.video, {
          type: MESSAGE.video,
          streamId,
          timestamp: frame.timeMs,
          payload: videoTag(frame.keyframe, 1, lengthPrefixed(slices)),
        });
        pictures++;
      }
    }
    link.command(0, ["FCUnpublish", 6, null, name]);
    link.command(0, ["deleteStream", 7, null, streamId]);
    await link.close();
    return { pictures };
  } catch (err) {
    link.destroy();
    throw err;
  }
}

/** One client connection: handshake done, messages in, commands and media out. */
class RtmpLink {
  private readonly reader = new ChunkReader();
  private readonly writer = new ChunkWriter();
  private readonly inbox: Amf0Value[][] = [];
  private waiting: (() => void) | undefined;
  private failure: Error | undefined;
  private readonly socket: Socket;
  private readonly timeoutMs: number;

  private constructor(socket: Socket, timeoutMs: number) {
    this.socket = socket;
    this.timeoutMs = timeoutMs;
  }

  static open(host: string, port: number, timeoutMs: number): Promise<RtmpLink> {
    return new Promise((resolve, reject) => {
      const socket = connect(port, host);
      const link = new RtmpLink(socket, timeoutMs);
      let pending: Buffer | undefined = Buffer.alloc(0);
      const timer = setTimeout(() => {
        socket.destroy();
        reject(new Error(`rtmp://${host}:${port}: no handshake within ${timeoutMs} ms`));
      }, timeoutMs);
      socket.once("connect", () => socket.write(clientHello()));
      socket.on("error", (err) => {
        clearTimeout(timer);
        link.fail(err);
        reject(err);
      });
      socket.on("close", () => link.fail(new Error("the RTMP server closed the connection")));
      socket.on("data", (data: Buffer) => {
        if (pending) {
          pending = Buffer.concat([pending, data]);
          const done = clientHandshake(pending);
          if (!done) return;
          socket.write(done.reply);
          data = pending.subarray(done.consumed);
          pending = undefined;
          clearTimeout(timer);
          link.send(2, controlMessage(MESSAGE.setChunkSize, 4096));
          link.writer.chunkSize = 4096;
          resolve(link);
        }
        try {
          for (const m of link.reader.push(data)) link.receive(m);
        } catch (err) {
          link.fail(err as Error);
        }
      });
    });
  }

  send(csid: number, message: RtmpMessage): void {
    this.socket.write(this.writer.write(csid, message));
  }

  command(streamId: number, values: Amf0Value[], csid: number = CSID.command): void {
    this.send(csid, { type: MESSAGE.amf0Command, streamId, timestamp: 0, payload: encodeAmf0(values) });
  }

  /** The _result of a transaction (an _error rejects). */
  answer(tx: number): Promise<Amf0Value[]> {
    return this.take((v) => (v[0] === "_result" || v[0] === "_error") && v[1] === tx).then((v) => {
      if (v[0] === "_error")
        throw new Error(`RTMP ${String((v[3] as Record<string, Amf0Value>)?.code ?? "error")}`);
      return v;
    });
  }

  /** onStatus NetStream.Publish.Start, or the refusal. */
  async published(): Promise<void> {
    const v = await this.take((x) => x[0] === "onStatus");
    const info = (v[3] ?? {}) as Record<string, Amf0Value>;
    if (info.code !== "NetStream.Publish.Start") {
      throw new Error(`publish refused: ${String(info.code)}: ${String(info.description ?? "")}`);
    }
  }

  close(): Promise<void> {
    return new Promise((resolve) => {
      this.socket.end(() => resolve());
      this.socket.once("close", () => resolve());
    });
  }

  destroy(): void {
    this.socket.destroy();
  }

  private receive(m: RtmpMessage): void {
    if (m.type === MESSAGE.amf0Command) this.inbox.push(decodeAmf0(m.payload));
    this.waiting?.();
  }

  private fail(err: Error): void {
    this.failure ??= err;
    this.waiting?.();
  }

  private async take(match: (values: Amf0Value[]) => boolean): Promise<Amf0Value[]> {
    const deadline = Date.now() + this.timeoutMs;
    for (;;) {
      const i = this.inbox.findIndex(match);
      if (i >= 0) return this.inbox.splice(i, 1)[0]!;
      if (this.failure) throw this.failure;
      if (Date.now() > deadline) throw new Error(`no RTMP answer within ${this.timeoutMs} ms`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, Math.max(0, deadline - Date.now()));
        this.waiting = () => {
          clearTimeout(timer);
          resolve();
        };
      });
    }
  }
}
