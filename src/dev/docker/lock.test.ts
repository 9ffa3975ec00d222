// One run at a time per cached Docker data root; a killed run's leftovers are cleaned by the next.
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { type LockRecord, lockDecision, takeLock } from "./lock.ts";

const DATA = "/root/.cache/livepeer-operator/docker/data";
const holder: LockRecord = {
  pid: 111,
  runDir: "/tmp/lpo-docker-x",
  netns: "lpo-docker-111",
  dockerdPid: 222,
};

describe("the data root lock", () => {
  it.each([
    [undefined, (): boolean => true, { take: true }],
    [holder, (): boolean => false, { take: true, stale: holder }],
  ])("takes it when free or its holder is gone (%j)", (record, alive, decision) => {
    expect(lockDecision(DATA, record, alive)).toEqual(decision);
  });

  it("refuses while its holder runs, naming the holder and the way out", () => {
    const decision = lockDecision(DATA, holder, (pid) => pid === 111);
    expect(decision.take).toBe(false);
    if (!decision.take) {
      expect(decision.why).toContain(
        `the Docker data root ${DATA} is in use by another run (pid 111, dockerd pid 222)`,
      );
      expect(decision.why).toContain("LPO_DOCKER_DATA_ROOT=<dir>");
    }
  });

  const dirs: string[] = [];
  afterEach(() => {
    for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
  });

  it("is exclusive between two takers, hands a dead holder's record to the cleanup, and is released", async () => {
    const dir = mkdtempSync(path.join(tmpdir(), "lpo-lock-test-"));
    dirs.push(dir);
    const file = path.join(dir, "data.lock");
    const mine = { pid: process.pid, runDir: dir, netns: "lpo-docker-test" };
    const held = await takeLock(file, DATA, mine, async () => {});
    held.update({ dockerdPid: 4321 });
    expect(JSON.parse(readFileSync(file, "utf8"))).toEqual({ ...mine, dockerdPid: 4321 });
    // A second run (another pid) while we hold it: refused, and our lock stays.
    await expect(takeLock(file, DATA, { ...mine, pid: 1 }, async () => {})).rejects.toThrow(
      `in use by another run (pid ${process.pid}, dockerd pid 4321)`,
    );
    held.release();
    await takeLock(file, DATA, { ...mine, pid: 2_000_000_000 }, async () => {});
    // Its holder (pid 2e9) does not exist: the next taker cleans up after it.
    const cleaned: LockRecord[] = [];
    const again = await takeLock(file, DATA, mine, async (stale) => void cleaned.push(stale));
    expect(cleaned.map((r) => r.pid)).toEqual([2_000_000_000]);
    again.release();
    expect(() => readFileSync(file)).toThrow(/ENOENT/);
  });
});
