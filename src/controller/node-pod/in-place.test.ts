// The liveness probe's script run by a real dash (the shell of both node images), against files
// and a real listening socket: exit 1 restarts the node in place, or means nothing listens.
import { execFile } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { livenessScript, STARTED_ENV } from "./in-place.ts";

const dir = mkdtempSync(path.join(tmpdir(), "in-place-probe-"));
const files = { wanted: path.join(dir, "wanted"), configHash: path.join(dir, "config-hash") };
let server: Server;
let port = 0;

beforeAll(async () => {
  server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  port = (server.address() as { port: number }).port;
});
afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
  rmSync(dir, { recursive: true, force: true });
});

function probe(o: { wanted?: string; mounted?: string; started?: string; port?: number }) {
  rmSync(files.wanted, { force: true });
  rmSync(files.configHash, { force: true });
  // As the kubelet writes them: the downwardAPI file without a newline, the ConfigMap key as rendered.
  if (o.wanted !== undefined) writeFileSync(files.wanted, o.wanted);
  if (o.mounted !== undefined) writeFileSync(files.configHash, o.mounted);
  return new Promise<{ code: number; out: string }>((resolve) => {
    execFile(
      "dash",
      ["-c", livenessScript(o.port ?? port, files)],
      {
        env: {
          PATH: process.env.PATH ?? "",
          ...(o.started !== undefined ? { [STARTED_ENV]: o.started } : {}),
        },
      },
      (err, stdout) => resolve({ code: err ? Number(err.code) : 0, out: stdout }),
    );
  });
}

describe("the node's liveness probe (dash)", () => {
  it.each<[string, Parameters<typeof probe>[0], number, RegExp | undefined]>([
    ["no restart request (a new pod): the port listens", { mounted: "A" }, 0, undefined],
    ["the request is the one it started with", { wanted: "B", mounted: "B", started: "B" }, 0, undefined],
    [
      "requested B, the mounted file still holds A: waits for the kubelet's refresh",
      { wanted: "B", mounted: "A", started: "" },
      0,
      undefined,
    ],
    [
      "requested B, B is mounted, started before any request: restart",
      { wanted: "B", mounted: "B", started: "" },
      1,
      /config B is mounted and wanted, the node started with its first: restart in place/,
    ],
    [
      "requested C after B, C is mounted: restart",
      { wanted: "C", mounted: "C", started: "B" },
      1,
      /the node started with B: restart in place/,
    ],
  ])("%s", async (_, o, code, out) => {
    const r = await probe(o);
    expect(r.code).toBe(code);
    if (out) expect(r.out).toMatch(out);
  });

  it("fails when nothing listens on the status port (the former tcpSocket check)", async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve));
    const free = (closed.address() as { port: number }).port;
    await new Promise((resolve) => closed.close(resolve));
    const r = await probe({ mounted: "A", port: free });
    expect(r).toEqual({ code: 1, out: `nothing listens on port ${free}\n` });
  });
});
