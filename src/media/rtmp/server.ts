// An RTMP ingest server (publish only), as far as encoders need it: the handshake, the chunk
// stream, connect / releaseStream / FCPublish / createStream / publish / FCUnpublish / deleteStream,
// acknowledgements, and the media and metadata messages of the published stream. Whether a publish
// is accepted is the caller's decision (the gateway's stream authorisation).
import { createServer, type Server, type Socket } from "node:net";
import { type Amf0Value, decodeAmf0, encodeAmf0 } from "./amf0.ts";
import {
  ChunkReader,
  ChunkWriter,
  controlMessage,
  MESSAGE,
  type RtmpMessage,
  userControl,
} from "./chunks.ts";
import { serverHandshake } from "./handshake.ts";

export interface PublishRequest {
  app: string;
  /** The stream name as published (a query string included). */
  name: string;
  /** rtmp://host:port/<app>/<name>, from the client's tcUrl: what the node hands its auth webhook. */
  url: string;
  remoteAddress: string;
}

export interface PublishSession {
  video(payload: Buffer, timestamp: number): void;
  audio(payload: Buffer, timestamp: number): void;
  metadata(values: Record<string, Amf0Value>): void;
  /** The publisher stopped (FCUnpublish, deleteStream or a closed connection). */
  end(): void;
}

export type PublishDecision = { session: PublishSession } | { refused: string };

const CHUNK_SIZE = 4096;
const WINDOW = 2_500_000;
const CSID = { control: 2, command: 3, stream: 5 } as const;
const STREAM_ID = 1;

export function createRtmpServer(
  onPublish: (request: PublishRequest) => Promise<PublishDecision>,
  onError: (err: Error) => void = () => {},
): Server {
  return createServer((socket) => {
    socket.setNoDelay(true);
    new RtmpConnection(socket, onPublish, onError);
  });
}

class RtmpConnection {
  private handshake: Buffer | undefined = Buffer.alloc(0);
  private answered = false;
  private readonly reader = new ChunkReader();
  private readonly writer = new ChunkWriter();
  private app = "";
  private tcUrl = "";
  private session: PublishSession | undefined;
  private received = 0;
  private acknowledged = 0;
  private peerWindow = WINDOW;
  private readonly socket: Socket;
  private readonly onPublish: (request: PublishRequest) => Promise<PublishDecision>;
  private readonly onError: (err: Error) => void;

  constructor(
    socket: Socket,
    onPublish: (request: PublishRequest) => Promise<PublishDecision>,
    onError: (err: Error) => void,
  ) {
    this.socket = socket;
    this.onPublish = onPublish;
    this.onError = onError;
    socket.on("data", (data: Buffer) => {
      try {
        this.receive(data);
      } catch (err) {
        this.onError(err as Error);
        socket.destroy();
      }
    });
    socket.on("close", () => this.endSession());
    socket.on("error", () => socket.destroy());
  }

  private receive(data: Buffer): void {
    if (this.handshake) {
      this.handshake = Buffer.concat([this.handshake, data]);
      const step = serverHandshake(this.handshake, this.answered);
      if (step.error) throw new Error(step.error);
      if (step.reply) {
        this.answered = true;
        this.socket.write(step.reply);
      }
      if (step.consumed === undefined) return;
      data = this.handshake.subarray(step.consumed);
      this.handshake = undefined;
      if (data.length === 0) return;
    }
    this.received += data.length;
    if (this.received - this.acknowledged >= this.peerWindow / 2) {
      this.acknowledged = this.received;
      this.send(CSID.control, controlMessage(MESSAGE.acknowledgement, this.received));
    }
    for (const message of this.reader.push(data)) this.handle(message);
  }

  private handle(m: RtmpMessage): void {
    switch (m.type) {
      case MESSAGE.windowAckSize:
        this.peerWindow = m.payload.readUInt32BE(0) || WINDOW;
        return;
      case MESSAGE.amf0Command:
      case MESSAGE.amf3Command:
        this.command(decodeAmf0(m.type === MESSAGE.amf3Command ? m.payload.subarray(1) : m.payload));
        return;
      case MESSAGE.amf0Data:
      case MESSAGE.amf3Data: {
        const values = decodeAmf0(m.type === MESSAGE.amf3Data ? m.payload.subarray(1) : m.payload);
        const meta = values.find((v) => typeof v === "object" && v !== null && !Array.isArray(v));
        if (meta) this.session?.metadata(meta as Record<string, Amf0Value>);
        return;
      }
      case MESSAGE.video:
        this.session?.video(m.payload, m.timestamp);
        return;
      case MESSAGE.audio:
        this.session?.audio(m.payload, m.timestamp);
        return;
      default:
        return;
    }
  }

  private command(values: Amf0Value[]): void {
    const [name, txId, object, ...args] = values;
    const tx = typeof txId === "number" ? txId : 0;
    switch (name) {
      case "connect": {
        const o = (object ?? {}) as Record<string, Amf0Value>;
        this.app = String(o.app ?? "").replace(/\/+$/, "");
        this.tcUrl = String(o.tcUrl ?? "");
        this.send(CSID.control, controlMessage(MESSAGE.windowAckSize, WINDOW));
        this.send(CSID.control, controlMessage(MESSAGE.setPeerBandwidth, WINDOW, 2));
        this.send(CSID.control, controlMessage(MESSAGE.setChunkSize, CHUNK_SIZE));
        this.writer.chunkSize = CHUNK_SIZE;
        this.reply(CSID.command, 0, [
          "_result",
          tx,
          { fmsVer: "FMS/3,0,1,123", capabilities: 31 },
          {
            level: "status",
            code: "NetConnection.Connect.Success",
            description: "Connection succeeded.",
            objectEncoding: 0,
          },
        ]);
        return;
      }
      case "releaseStream":
      case "FCPublish":
        if (tx > 0) this.reply(CSID.command, 0, ["_result", tx, null, undefined]);
        return;
      case "createStream":
        this.reply(CSID.command, 0, ["_result", tx, null, STREAM_ID]);
        return;
      case "publish":
        void this.publish(String(args[0] ?? ""));
        return;
      case "FCUnpublish":
      case "deleteStream":
      case "closeStream":
        this.endSession();
        return;
      default:
        return;
    }
  }

  private async publish(name: string): Promise<void> {
    const base =
      this.tcUrl !== ""
        ? this.tcUrl.replace(/\/+$/, "")
        : `rtmp://${this.socket.localAddress}:${this.socket.localPort}/${this.app}`;
    const request = {
      app: this.app,
      name,
      url: `${base}/${name}`,
      remoteAddress: this.socket.remoteAddress ?? "",
    };
    let decision: PublishDecision;
    try {
      decision = await this.onPublish(request);
    } catch (err) {
      decision = { refused: (err as Error).message };
    }
    if (this.socket.destroyed) {
      if ("session" in decision) decision.session.end();
      return;
    }
    if ("refused" in decision) {
      this.status("error", "NetStream.Publish.BadName", decision.refused);
      this.socket.end();
      return;
    }
    this.session = decision.session;
    this.send(CSID.control, userControl(0, STREAM_ID)); // Stream Begin
    this.status("status", "NetStream.Publish.Start", `${name} is now published.`);
  }

  private status(level: string, code: string, description: string): void {
    this.reply(CSID.stream, STREAM_ID, ["onStatus", 0, null, { level, code, description }]);
  }

  private endSession(): void {
    const session = this.session;
    this.session = undefined;
    session?.end();
  }

  private reply(csid: number, streamId: number, values: Amf0Value[]): void {
    this.send(csid, { type: MESSAGE.amf0Command, streamId, timestamp: 0, payload: encodeAmf0(values) });
  }

  private send(csid: number, message: RtmpMessage): void {
    if (!this.socket.destroyed) this.socket.write(this.writer.write(csid, message));
  }
}
