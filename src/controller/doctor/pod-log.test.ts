import { describe, expect, it } from "vitest";
import { podLogRequest, splitLogBody } from "./pod-log.ts";

describe("podLogRequest", () => {
  it("asks for one container's timestamped lines, bounded, from the cursor's position", () => {
    const { path, query } = podLogRequest({
      namespace: "video",
      pod: "orch-0",
      container: "livepeer",
      from: { since: new Date("2026-01-02T15:04:05Z") },
      previous: true,
      limitBytes: 1024,
    });
    expect(path).toBe("/api/v1/namespaces/video/pods/orch-0/log");
    expect(query).toEqual({
      container: "livepeer",
      timestamps: "true",
      limitBytes: "1024",
      sinceTime: "2026-01-02T15:04:05Z",
      previous: "true",
    });
  });

  it("asks for the last lines of the running container on a first read", () => {
    const { query } = podLogRequest({
      namespace: "video",
      pod: "orch-0",
      container: "livepeer",
      from: { tailLines: 500 },
      limitBytes: 1024,
    });
    expect(query).toEqual({
      container: "livepeer",
      timestamps: "true",
      limitBytes: "1024",
      tailLines: "500",
    });
  });
});

describe("splitLogBody", () => {
  it.each([
    ["complete lines", "a\nb\n", false, ["a", "b"]],
    ["a last line without newline, not cut", "a\nb", false, ["a", "b"]],
    ["a last line cut by the byte limit is left for the next read", "a\nb", true, ["a"]],
    ["empty", "", false, []],
    ["blank lines dropped", "a\n\nb\n", false, ["a", "b"]],
  ])("%s", (_, body, truncated, lines) => {
    expect(splitLogBody(body, truncated)).toEqual(lines);
  });
});
