import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { describe, expect, it } from "vitest";
import { parseTimedLine } from "../doctor/log-cursor.ts";
import { exactTime, StreamEndReporter, streamEndOf } from "./stream-ends.ts";

const now = Date.parse("2026-11-24T16:00:00Z");
const line = (raw: string) => parseTimedLine(raw)!;

describe("a gateway log line as a stream end report", () => {
  it.each([
    [
      "the node's end line, to the nanosecond",
      "2026-11-24T15:02:03.456789012Z I1124 15:02:03.456789       1 mediaserver.go:609] Ended stream with manifestID=demo external manifestID=demo",
      { manifestID: "demo", externalManifestID: "demo", pod: "gw-0", at: "2026-11-24T15:02:03.456789012Z" },
    ],
    [
      "a short fraction is padded, never rounded",
      "2026-11-24T15:02:03.5Z Ended stream with manifestID=a external manifestID=b",
      { manifestID: "a", externalManifestID: "b", pod: "gw-0", at: "2026-11-24T15:02:03.500000000Z" },
    ],
    [
      "a line older than a day (history)",
      "2026-11-22T15:02:03Z Ended stream with manifestID=a external manifestID=a",
      undefined,
    ],
    [
      "another line",
      "2026-11-24T15:02:03Z I1124 mediaserver.go:781] Got push request at url=http://h/live/a/0.ts",
      undefined,
    ],
  ])("%s", (_, raw, expected) => {
    expect(streamEndOf("gw-0", line(raw), now)).toEqual(expected);
  });

  it("exactTime keeps whole seconds and nanoseconds", () => {
    expect(exactTime(1_764_000_000_000_000_001n)).toBe("2025-11-24T16:00:00.000000001Z");
  });
});

describe("reporting a gateway's stream ends to the API", () => {
  // A real HTTP hook on loopback answering each report with the next status in `answers`.
  async function hook(answers: number[]) {
    const reports: { ends: { externalManifestID: string }[] }[] = [];
    const server = createServer((req, res) => {
      let body = "";
      req.on("data", (c: Buffer) => {
        body += c.toString("utf8");
      });
      req.on("end", () => {
        reports.push(JSON.parse(body));
        res.writeHead(answers.shift() ?? 204).end();
      });
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const port = (server.address() as AddressInfo).port;
    return {
      reports,
      url: `http://127.0.0.1:${port}/hook`,
      close: () => new Promise((r) => server.close(r)),
    };
  }
  // Stamped just now: the reporter leaves lines older than a day alone.
  const stamp = (second: number) => new Date(Date.now() - 60_000 + second * 1000).toISOString();
  const endLine = (id: string, second: number) =>
    line(`${stamp(second)} Ended stream with manifestID=${id} external manifestID=${id}`);

  it.each([
    ["taken at once", [204], 1],
    ["503 (store down) then taken: sent again", [503, 204], 2],
    ["404 (token not seen yet) then taken: sent again", [404, 204], 2],
    ["422 (refused): dropped, not sent again", [422], 1],
  ])("%s", async (_, answers, expectedReports) => {
    const h = await hook([...answers]);
    const reporter = new StreamEndReporter({ hookUrl: async () => h.url, retryMs: 20 });
    try {
      reporter.track("video/gw", { namespace: "video", name: "gw" }, true);
      reporter.onLine("video/gw", "gw-0", endLine("demo", 1));
      await expect.poll(() => h.reports.length).toBe(expectedReports);
      // A sentinel end after it: its report carries only itself, so nothing of "demo" was left
      // pending or waiting for a retry.
      reporter.onLine("video/gw", "gw-0", endLine("sentinel", 2));
      await expect.poll(() => h.reports.length).toBe(expectedReports + 1);
      expect(h.reports.map((r) => r.ends.map((e) => e.externalManifestID))).toEqual([
        ...Array.from({ length: expectedReports }, () => ["demo"]),
        ["sentinel"],
      ]);
    } finally {
      reporter.stop();
      await h.close();
    }
  });

  it("ignores other lines and Gateways whose stream events are off", async () => {
    const h = await hook([]);
    const reporter = new StreamEndReporter({ hookUrl: async () => h.url, retryMs: 20 });
    try {
      reporter.track("video/off", { namespace: "video", name: "off" }, false);
      reporter.onLine("video/off", "off-0", endLine("a", 1));
      reporter.track("video/gw", { namespace: "video", name: "gw" }, true);
      reporter.onLine("video/gw", "gw-0", line(`${stamp(2)} Got push request at url=http://h/live/a/0.ts`));
      reporter.onLine("video/gw", "gw-0", endLine("b", 3));
      await expect.poll(() => h.reports.length).toBe(1);
      expect(h.reports[0]!.ends.map((e) => e.externalManifestID)).toEqual(["b"]);
    } finally {
      reporter.stop();
      await h.close();
    }
  });
});
