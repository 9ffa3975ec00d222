import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { Wallet } from "ethers";
import { afterAll, describe, expect, it } from "vitest";
import {
  ensureAccountFiles,
  keystoreAddress,
  keystoreFileName,
  readPasswordFile,
  unlockKeystore,
} from "./keystore.ts";

const tmp = mkdtempSync(path.join(tmpdir(), "devnet-keystore-"));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));
const KEY = "0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d";

describe("keystore files", () => {
  it("names the file as go-ethereum does: UTC--<time>--<address lowercase without 0x>", () => {
    const name = keystoreFileName(
      "0x70997970C51812dc3A010C7d01b50e0d17dc79C8",
      new Date("2024-01-02T03:04:05.678Z"),
    );
    expect(name).toBe("UTC--2024-01-02T03-04-05.678Z--70997970c51812dc3a010c7d01b50e0d17dc79c8");
  });

  it("writes a keystore that unlocks with its password file, which has no trailing newline", async () => {
    const files = await ensureAccountFiles(path.join(tmp, "gateway-0"), KEY);
    const password = readFileSync(files.passwordFile, "utf8");
    expect(password).not.toMatch(/\n$/);
    expect(path.basename(files.keystoreFile)).toMatch(/^UTC--.+--70997970c51812dc3a010c7d01b50e0d17dc79c8$/);
    const wallet = await unlockKeystore(files.keystoreFile, readPasswordFile(files.passwordFile));
    expect(wallet.address).toBe(new Wallet(KEY).address);
    expect(keystoreAddress(files.keystoreFile)).toBe(wallet.address);
  });

  it("reuses a keystore that still unlocks instead of writing another", async () => {
    const dir = path.join(tmp, "orchestrator-0");
    const first = await ensureAccountFiles(dir, KEY);
    const second = await ensureAccountFiles(dir, KEY);
    expect(second).toEqual({ ...first, reused: true });
    expect(readdirSync(path.join(dir, "keystore"))).toHaveLength(1);
  });

  it("says 'wrong password' for a wrong password", async () => {
    const files = await ensureAccountFiles(path.join(tmp, "gateway-1"), KEY);
    await expect(unlockKeystore(files.keystoreFile, "nope")).rejects.toThrow(/wrong password/);
  });

  it("refuses a password file with a trailing newline and says how to fix it", () => {
    const file = path.join(tmp, "password-with-newline");
    writeFileSync(file, "secret\n");
    expect(() => readPasswordFile(file)).toThrow(/ends with a newline.*printf/);
  });
});
