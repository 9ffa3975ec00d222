import { describe, expect, it } from "vitest";
import { canIAnswer } from "./can-i.ts";

describe("canIAnswer: only kubectl's own yes or no", () => {
  it.each([
    [{ code: 0, stdout: "yes\n", stderr: "" }, true],
    [{ code: 1, stdout: "no\n", stderr: "" }, false],
    [{ code: 1, stdout: "no - RBAC: not allowed\n", stderr: "" }, false],
  ])("%o is %s", (run, answer) => {
    expect(canIAnswer(run)).toBe(answer);
  });

  it.each([
    [
      "a misspelled resource",
      { code: 1, stdout: "no\n", stderr: "Warning: the server doesn't have a resource type 'secretz'\n\n" },
    ],
    ["a misspelled verb", { code: 1, stdout: "no\n", stderr: "Warning: verb 'gett' is not a known verb\n" }],
    [
      "a cluster-scoped resource asked in a namespace",
      { code: 0, stdout: "yes\n", stderr: "Warning: resource 'nodes' is not namespace scoped\n" },
    ],
    [
      "kubectl failing",
      { code: 1, stdout: "", stderr: "error: You must be logged in to the server (Unauthorized)\n" },
    ],
    [
      "a connection refused",
      { code: 1, stdout: "", stderr: "The connection to the server 127.0.0.1:1 was refused\n" },
    ],
    ["a kubectl that is not there", { code: -1, stdout: "", stderr: "spawn kubectl ENOENT" }],
    ["yes with a failing exit", { code: 1, stdout: "yes\n", stderr: "" }],
    ["no with exit 0", { code: 0, stdout: "no\n", stderr: "" }],
    ["some other exit", { code: 2, stdout: "no\n", stderr: "" }],
    ["an answer that only contains yes", { code: 0, stdout: "yes, but\n", stderr: "" }],
  ])("%s is an error quoting what kubectl said", (_, run) => {
    expect(() => canIAnswer(run)).toThrow(/no clean answer/);
  });
});
