import { describe, expect, it } from "vitest";
import { UsageError } from "./command.ts";
import { parsePushStreamArgs } from "./push-stream-args.ts";
import { nothingTranscoded, segmentLine, transcoded } from "./push-stream-report.ts";

const parse = (args: string[]) => parsePushStreamArgs(args, "USAGE");

describe("push-stream arguments", () => {
  it.each([
    [
      "a URL: HTTP ingest, 10 segments in real time",
      ["--url", "http://127.1.0.5:8935"],
      {
        target: { url: "http://127.1.0.5:8935" },
        transport: "http",
        name: "test-stream",
        segments: 10,
        realtime: true,
        rtmpPort: 1935,
      },
    ],
    [
      "a bare host:port gets http://",
      ["--url", "127.1.0.5:9935"],
      { target: { url: "http://127.1.0.5:9935" } },
    ],
    [
      "a URL without a port gets the node's 8935",
      ["--url", "http://localhost"],
      { target: { url: "http://localhost:8935" } },
    ],
    [
      "a trailing slash is fine",
      ["--url", "http://localhost:8935/"],
      { target: { url: "http://localhost:8935" } },
    ],
    [
      "a Gateway by name and namespace",
      ["--gateway", "main", "-n", "video"],
      { target: { gateway: "main", namespace: "video", kubeconfig: undefined } },
    ],
    [
      "a Gateway with its kubeconfig, namespace left to the context",
      ["--gateway", "main", "--kubeconfig", "/k"],
      { target: { gateway: "main", namespace: undefined, kubeconfig: "/k" } },
    ],
    ["--rtmp", ["--url", "h:1", "--rtmp"], { transport: "rtmp", rtmpPort: 1935 }],
    [
      "--rtmp on another port",
      ["--url", "h:1", "--rtmp", "--rtmp-port", "19350"],
      { transport: "rtmp", rtmpPort: 19350 },
    ],
    [
      "--ffmpeg wins over --rtmp (it publishes RTMP)",
      ["--url", "h:1", "--ffmpeg", "--rtmp"],
      { transport: "ffmpeg" },
    ],
    [
      "name, segments, no real time",
      ["--url", "h:1", "--name", "cam_1.a", "--segments", "3", "--no-realtime"],
      { name: "cam_1.a", segments: 3, realtime: false },
    ],
  ])("%s", (_label, args, expected) => {
    expect(parse(args)).toMatchObject(expected);
  });

  it.each([
    ["neither --url nor --gateway", [], /exactly one of --url .* or --gateway NAME/],
    ["both --url and --gateway", ["--url", "h:1", "--gateway", "g"], /exactly one of --url/],
    ["--namespace with --url", ["--url", "h:1", "-n", "x"], /--namespace and --kubeconfig go with --gateway/],
    ["an RTMP URL as --url", ["--url", "rtmp://h:1935/live/x"], /give the gateway's HTTP port .*add --rtmp/],
    [
      "a URL with a path",
      ["--url", "http://h:8935/live/x"],
      /only scheme, host and port, for example http:\/\/h:8935/,
    ],
    ["a Gateway name kubectl would refuse", ["--gateway", "Main_GW"], /--gateway Main_GW: a Gateway's name/],
    ["a stream name with a slash", ["--url", "h:1", "--name", "a/b"], /--name "a\/b": use letters, digits/],
    [
      "zero segments",
      ["--url", "h:1", "--segments", "0"],
      /--segments 0: give a whole number from 1 to 10000/,
    ],
    ["a fraction of segments", ["--url", "h:1", "--segments", "2.5"], /--segments 2.5: give a whole number/],
    [
      "an RTMP port past 65535",
      ["--url", "h:1", "--rtmp", "--rtmp-port", "70000"],
      /--rtmp-port 70000: .* 1 to 65535/,
    ],
    [
      "--rtmp-port without RTMP",
      ["--url", "h:1", "--rtmp-port", "1936"],
      /--rtmp-port goes with --rtmp or --ffmpeg/,
    ],
    ["an unknown option, with the usage", ["--url", "h:1", "--fast"], /Unknown option '--fast'[\s\S]*USAGE/],
  ])("refuses %s, naming the option and the fix", (_label, args, message) => {
    let err: unknown;
    try {
      parse(args);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(UsageError);
    expect((err as UsageError).exitCode).toBe(2);
    expect((err as UsageError).message).toMatch(message);
  });
});

describe("push-stream report", () => {
  it.each([
    ["a transcoded push", { seq: 0, status: 200, body: "", ms: 41.6 }, "segment 0: 200 transcoded in 42 ms"],
    [
      "a refused push with the gateway's words",
      { seq: 3, status: 503, body: "No sessions available\n", ms: 5 },
      "segment 3: 503 refused in 5 ms: No sessions available",
    ],
    [
      "a segment seen in the playlists (RTMP)",
      { seq: 2, renditions: ["source", "P144p30fps16x9"] },
      "segment 2: in the HLS playlist (source, P144p30fps16x9)",
    ],
  ])("one line per segment: %s", (_label, answer, line) => {
    expect(segmentLine(answer)).toBe(line);
  });

  it("counts pushes answered 200 and segments seen in a rendition", () => {
    expect(
      transcoded([
        { seq: 0, status: 200 },
        { seq: 1, status: 503 },
        { seq: 2, renditions: ["source"] },
        { seq: 3, renditions: [] },
      ]),
    ).toBe(2);
  });

  it.each([
    [
      "some segment transcoded: nothing to explain",
      [
        { seq: 0, status: 503 },
        { seq: 1, status: 200 },
      ],
      undefined,
    ],
    [
      "503: no orchestrator took it -> price and orchestrators",
      [{ seq: 0, status: 503, body: "No sessions available" }],
      /answered 503 "No sessions available" \(segment 0\).*kubectl get gw \(ORCHS, PRICE\)/,
    ],
    [
      "404: not the ingest port",
      [{ seq: 0, status: 404, body: "404 page not found" }],
      /HTTP ingest on \(spec\.ingest\.http\)/,
    ],
    [
      "500: the gateway's log",
      [{ seq: 1, status: 500, body: "http push error" }],
      /answered 500 "http push error" \(segment 1\).*kubectl logs/,
    ],
    [
      "RTMP with nothing in the playlist",
      [],
      /no segment reached the HLS playlist of PLAYLIST: look at the gateway's log/,
    ],
  ])("why nothing was transcoded: %s", (_label, answers, expected) => {
    const why = nothingTranscoded(answers, "PLAYLIST");
    if (expected === undefined) expect(why).toBeUndefined();
    else expect(why).toMatch(expected);
  });
});
