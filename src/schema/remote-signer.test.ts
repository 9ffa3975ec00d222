import { describe, expect, it } from "vitest";
import type { z } from "zod";
import { GatewaySpecSchema } from "./gateway.ts";
import { remoteSignerAuthHookPath, remoteSignerAuthHookUrl } from "./node-hooks.ts";
import { RemoteSignerSpecSchema } from "./remote-signer.ts";

function problems(schema: z.ZodType, value: unknown): string[] {
  const r = schema.safeParse(value);
  return r.success ? [] : r.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`);
}

const onChain = { network: "devnet", devnet: "livepeer-devnet", keystoreSecret: "signer-keystore" };

describe("RemoteSigner spec", () => {
  it("defaults: one replica on 8935, auth answers cached 60 s", () => {
    expect(RemoteSignerSpecSchema.parse(onChain)).toEqual({
      ...onChain,
      replicas: 1,
      port: 8935,
      authCacheSeconds: 60,
    });
  });

  it.each([
    ["offchain (the default)", {}, /^network: a remote signer is on chain only/],
    ["no keystore", { network: "devnet", devnet: "d" }, /^keystoreSecret: keystoreSecret is required/],
    ["no chain URL", { network: "arbitrum-one-mainnet", keystoreSecret: "k" }, /^ethUrl: ethUrl is required/],
    ["zero replicas", { ...onChain, replicas: 0 }, /^replicas: replicas must be 1 or more/],
    ["auth cache over an hour", { ...onChain, authCacheSeconds: 3601 }, /^authCacheSeconds:/],
    [
      "a tenant name that is no DNS label",
      { ...onChain, tenants: [{ name: "Studio_A" }] },
      /^tenants\.0\.name: tenants\[\]\.name "Studio_A" is not a DNS-1123 label/,
    ],
    [
      "a cap in ETH rather than wei",
      { ...onChain, tenants: [{ name: "a", maxPrice: { live: "0.5" } }] },
      /^tenants\.0\.maxPrice\.live: maxPrice\.live "0\.5" is not an amount of wei/,
    ],
    [
      "a budget as a number",
      { ...onChain, tenants: [{ name: "a", budget: { perDay: 100 } }] },
      /^tenants\.0\.budget\.perDay: budget\.perDay must be a string of wei: quote it/,
    ],
    [
      "an expiry that is no timestamp",
      { ...onChain, tenants: [{ name: "a", expiresAt: "tomorrow" }] },
      /^tenants\.0\.expiresAt:/,
    ],
    ["storage (signers keep no state)", { ...onChain, storage: { size: "1Gi" } }, /Unrecognized key/],
  ])("refuses %s, naming the field", (_, spec, message) => {
    expect(problems(RemoteSignerSpecSchema, spec)).toEqual([expect.stringMatching(message)]);
  });

  it("takes tenants with caps per unit and per app, budgets and an expiry, discovery and access", () => {
    expect(
      problems(RemoteSignerSpecSchema, {
        ...onChain,
        replicas: 3,
        discovery: {
          orchestratorSelector: { matchLabels: { "livepeer.org/pool": "devnet" } },
          capabilities: ["live-video-to-video/streamdiffusion"],
        },
        access: { namespaces: ["apps"] },
        tenants: [
          {
            name: "studio-a",
            maxPrice: { live: "1000", lv2v: "2", fixed: "5000" },
            apps: [{ app: "live-video-to-video/streamdiffusion", maxPrice: { lv2v: "1" } }],
            budget: { perDay: "1000000000000000000", perStream: "1000000000000000" },
            expiresAt: "2027-01-01T00:00:00Z",
          },
        ],
      }),
    ).toEqual([]);
  });
});

describe("Gateway spec with a remote signer", () => {
  const keyless = { remoteSigner: { name: "signer-a" }, orchestrators: { selector: {} } };

  it("takes a signer reference with a headers Secret and no chain fields", () => {
    expect(
      problems(GatewaySpecSchema, {
        ...keyless,
        remoteSigner: { name: "signer-a", headersSecretRef: { name: "gw-headers", key: "headers" } },
      }),
    ).toEqual([]);
  });

  it.each([
    ["network", { network: "devnet", devnet: "d", keystoreSecret: "k" }],
    ["a keystore", { keystoreSecret: "k" }],
    ["an eth URL", { ethUrl: "https://x" }],
    ["an account", { ethAcctAddr: "0x2b0814f58c250e09033DA8D3246b93D0245ECA71" }],
    [
      "funding",
      { funding: { minDeposit: "1", minReserve: "1", topUpDeposit: "1", topUpReserve: "1", maxPerDay: "1" } },
    ],
  ])("refuses remoteSigner with %s, telling the fix", (_, chain) => {
    expect(problems(GatewaySpecSchema, { ...keyless, ...chain })).toContainEqual(
      expect.stringMatching(
        /^remoteSigner: remoteSigner and the chain fields are mutually exclusive: .*set them on the RemoteSigner\), or remove remoteSigner$/,
      ),
    );
  });
});

describe("the remote signer's auth hook", () => {
  it("is the signer's path under the node hooks, the token in the query string", () => {
    expect(remoteSignerAuthHookPath("video", "signer-a")).toBe(
      "/node-hooks/v1/remote-signers/video/signer-a/auth",
    );
    expect(remoteSignerAuthHookUrl("http://api.lp.svc:8080/", "video", "signer-a", "t+k/=")).toBe(
      "http://api.lp.svc:8080/node-hooks/v1/remote-signers/video/signer-a/auth?token=t%2Bk%2F%3D",
    );
  });
});
