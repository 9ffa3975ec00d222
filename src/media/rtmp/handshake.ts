// The plain RTMP handshake (version 3): C0 C1 / S0 S1 S2 / C2, 1536-byte random blocks echoed back.
// Server version zero in S1 tells clients such as ffmpeg not to expect the digest variant.
import { randomBytes } from "node:crypto";

export const HANDSHAKE_SIZE = 1536;
const RTMP_VERSION = 3;

function block(): Buffer {
  const b = randomBytes(HANDSHAKE_SIZE);
  b.writeUInt32BE(0, 0); // time
  b.writeUInt32BE(0, 4); // zero (version 0: plain handshake)
  return b;
}

/** C0 + C1. */
export function clientHello(): Buffer {
  return Buffer.concat([Buffer.from([RTMP_VERSION]), block()]);
}

/**
 * The server's side: given what has arrived, the answer to send (S0 S1 S2 once C0 C1 are in) and,
 * once C2 is in too, how many bytes the handshake used; later bytes are chunks.
 */
export function serverHandshake(
  received: Buffer,
  answered: boolean,
): { reply?: Buffer; consumed?: number; error?: string } {
  if (received.length >= 1 && received[0] !== RTMP_VERSION) {
    return { error: `unsupported RTMP version ${received[0]} (this server speaks plain RTMP, version 3)` };
  }
  const out: { reply?: Buffer; consumed?: number } = {};
  if (!answered && received.length >= 1 + HANDSHAKE_SIZE) {
    const c1 = received.subarray(1, 1 + HANDSHAKE_SIZE);
    out.reply = Buffer.concat([Buffer.from([RTMP_VERSION]), block(), c1]);
  }
  if (received.length >= 1 + 2 * HANDSHAKE_SIZE) out.consumed = 1 + 2 * HANDSHAKE_SIZE;
  return out;
}

/** The client's side: once S0 S1 S2 are in, C2 to send and how many bytes they used. */
export function clientHandshake(received: Buffer): { reply: Buffer; consumed: number } | undefined {
  if (received.length < 1 + 2 * HANDSHAKE_SIZE) return undefined;
  const s1 = received.subarray(1, 1 + HANDSHAKE_SIZE);
  return { reply: Buffer.from(s1), consumed: 1 + 2 * HANDSHAKE_SIZE };
}
