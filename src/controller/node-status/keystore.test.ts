import { describe, expect, it } from "vitest";
import { OrchestratorSpecSchema } from "../../schema/orchestrator.ts";
import {
  type KeystoreState,
  keystoreFromData,
  keystoreFromKeys,
  keystoreFromPassword,
  keystoreSecretOf,
  keystoreVerdict,
} from "./keystore.ts";

describe("keystoreSecretOf", () => {
  it.each([
    [{ network: "offchain", keystoreSecret: "keys" }, undefined],
    [{ network: "devnet", keystoreSecret: "keys" }, "keys"],
    [{ network: "arbitrum-one-mainnet" }, undefined],
  ] as const)("%j -> %s", (spec, secret) => {
    expect(keystoreSecretOf({ spec: { ...OrchestratorSpecSchema.parse({}), ...spec } })).toBe(secret);
  });
});

describe("keystoreFromKeys", () => {
  it.each([
    ["no Secret", undefined, { state: "missing", secret: "keys" }],
    [
      "no password key",
      ["key.json"],
      { state: "missing-keys", secret: "keys", missing: ["password"], present: ["key.json"] },
    ],
    [
      "no keys at all",
      [],
      { state: "missing-keys", secret: "keys", missing: ["key.json", "password"], present: [] },
    ],
    ["both keys: the password decides", ["password", "key.json", "extra"], undefined],
  ] as const)("%s", (_, keys, verdict) => {
    expect(keystoreFromKeys("keys", keys)).toEqual(verdict);
  });
});

describe("keystoreFromPassword", () => {
  it.each([
    ["fine", "s3cret", "ok"],
    ["a trailing newline", "s3cret\n", "trailing-newline"],
    ["a trailing CRLF", "s3cret\r\n", "trailing-newline"],
    ["empty", "", "empty-password"],
  ] as const)("%s", (_, password, state) => {
    const v = keystoreFromPassword("keys", password, 'Secret video/keys key "password"');
    expect(v.state).toBe(state);
    expect(JSON.stringify(v)).not.toContain("s3cret");
  });

  it("the newline finding names the Secret and says how to fix it", () => {
    const v = keystoreFromPassword("keys", "pw\n", 'Secret video/keys key "password"');
    expect(v.state === "trailing-newline" && v.finding).toMatchObject({
      id: "KeystorePasswordTrailingNewline",
      severity: "error",
      message: expect.stringContaining('Secret video/keys key "password"'),
      action: expect.stringContaining("printf '%s'"),
    });
  });
});

describe("keystoreFromData (a Secret as GET returns it: base64 values)", () => {
  const b64 = (s: string) => Buffer.from(s).toString("base64");
  it.each<[string, Record<string, string> | undefined, KeystoreState["state"]]>([
    ["usable", { "key.json": b64("{}"), password: b64("s3cret") }, "ok"],
    ["no data at all", undefined, "missing-keys"],
    ["no password key", { "key.json": b64("{}") }, "missing-keys"],
    ["an empty password", { "key.json": b64("{}"), password: "" }, "empty-password"],
    [
      "a password ending in a newline",
      { "key.json": b64("{}"), password: b64("s3cret\n") },
      "trailing-newline",
    ],
  ])("%s -> %s", (_, data, state) => {
    const got = keystoreFromData("keys", data, "video");
    expect(got.state).toBe(state);
    expect(JSON.stringify(got)).not.toContain("s3cret");
  });

  it("names the Secret's namespace in the newline finding", () => {
    const got = keystoreFromData("keys", { "key.json": "e30=", password: b64("pw\n") }, "video");
    expect(got.state === "trailing-newline" && got.finding.message).toContain(
      'Secret video/keys key "password"',
    );
  });
});

describe("keystoreVerdict", () => {
  const newline = keystoreFromPassword("keys", "pw\n", 'Secret video/keys key "password"');
  it.each<[string, KeystoreState, string | undefined, string | undefined]>([
    ["no keystore", { state: "unused" }, undefined, undefined],
    ["a usable one", { state: "ok", secret: "keys" }, undefined, undefined],
    ["a newline (a finding instead)", newline, undefined, undefined],
    [
      "no Secret",
      { state: "missing", secret: "keys" },
      "KeystoreSecretNotFound",
      "kubectl create secret generic keys -n video",
    ],
    [
      "a key missing",
      { state: "missing-keys", secret: "keys", missing: ["password"], present: ["key.json"] },
      "KeystoreSecretKeyMissing",
      'Secret video/keys (spec.keystoreSecret) has no key "password" (it has: key.json)',
    ],
    [
      "an empty password",
      { state: "empty-password", secret: "keys" },
      "KeystorePasswordEmpty",
      'key "password" is empty',
    ],
    [
      "unreadable",
      { state: "unreadable", secret: "keys", error: "timeout" },
      "KeystoreSecretUnreadable",
      ": timeout",
    ],
  ])("%s", (_, state, reason, says) => {
    const v = keystoreVerdict(state, "video");
    expect(v?.reason).toBe(reason);
    if (v) {
      expect(v.status).toBe("False");
      expect(v.message).toContain(says);
    }
  });
});
