import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { claimPodCidr } from "./pod-cidr.ts";

const dirs: string[] = [];
const locks = () => {
  const d = mkdtempSync(path.join(os.tmpdir(), "pod-cidr-test-"));
  dirs.push(d);
  return d;
};
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

describe("pod CIDRs of local control planes", () => {
  it("the first takes 127.1.0.0/16, a second beside it the next one, a released one is free again", () => {
    const dir = locks();
    const a = claimPodCidr(process.pid, dir);
    const b = claimPodCidr(process.pid, dir);
    expect([a.cidr, b.cidr]).toEqual(["127.1.0.0/16", "127.2.0.0/16"]);
    a.release();
    expect(claimPodCidr(process.pid, dir).cidr).toBe("127.1.0.0/16");
  });

  it("takes over a CIDR whose holder died", () => {
    const dir = locks();
    claimPodCidr(2 ** 22 + 12345, dir); // a pid no process has
    expect(claimPodCidr(process.pid, dir).cidr).toBe("127.1.0.0/16");
  });
});
