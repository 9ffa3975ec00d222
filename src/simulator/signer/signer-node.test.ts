// A -remoteSigner node simulator as the node starts it: the refusals (off chain, combined with a
// mode flag, a public -httpAddr without a webhook) with the node's words and exit codes, and the
// endpoints a started signer serves with the keystore's key (no chain needed to sign).
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { encryptKeystoreJsonSync, verifyMessage, Wallet } from "ethers";
import { afterAll, describe, expect, it } from "vitest";
import { LIGHT_SCRYPT } from "../../devnet/keystore.ts";
import { orchestratorInfoMessage } from "../../node/wire/signed-identity.ts";
import { type NodeSimulator, NodeStartError, startNodeSimulator } from "../simulator.ts";

const dir = mkdtempSync(path.join(tmpdir(), "signer-node-"));
const wallet = Wallet.createRandom();
const keystore = path.join(dir, "key.json");
const passwordFile = path.join(dir, "password");
writeFileSync(
  keystore,
  encryptKeystoreJsonSync({ address: wallet.address, privateKey: wallet.privateKey }, "pw", {
    scrypt: LIGHT_SCRYPT,
  }),
);
writeFileSync(passwordFile, "pw");
const running: NodeSimulator[] = [];
afterAll(async () => {
  await Promise.all(running.map((s) => s.stop()));
  rmSync(dir, { recursive: true, force: true });
});

const onChain = [
  "-network=devnet",
  "-ethUrl=http://127.0.0.1:1",
  "-ethController=0x77A0865438f2EfD65667362D4a8937537CA7a5EF",
  `-ethKeystorePath=${keystore}`,
  `-ethPassword=${passwordFile}`,
];

async function start(
  argv: string[],
): Promise<{ sim?: NodeSimulator; error?: NodeStartError; lines: string[] }> {
  const lines: string[] = [];
  try {
    const sim = await startNodeSimulator({ argv, log: (l) => lines.push(l) });
    running.push(sim);
    return { sim, lines };
  } catch (err) {
    if (err instanceof NodeStartError) return { error: err, lines };
    throw err;
  }
}

describe("a -remoteSigner node simulator", () => {
  it.each([
    [["-remoteSigner"], 2, "Remote signer mode requires on-chain network"],
    [
      ["-remoteSigner", ...onChain, "-httpAddr=0.0.0.0:8935", "-cliAddr=127.0.0.1:0"],
      2,
      "Refusing to start: remote signer on public -httpAddr 0.0.0.0:8935 with no -remoteSignerWebhookUrl signs payments from this node's deposit for any caller. Set the webhook, or pass -remoteSignerAllowNoAuth to override.",
    ],
    [
      ["-remoteSigner", "-gateway", ...onChain],
      1,
      "-remoteSigner with -gateway: the remote signer is a node type of its own",
    ],
  ])("refuses %j (exit %i)", async (argv, code, message) => {
    const { error, lines } = await start(argv);
    expect(error?.exitCode).toBe(code);
    expect(error?.message).toContain(message);
    expect(lines.some((l) => l.includes(message))).toBe(true);
  });

  it("on loopback without a webhook: warns, signs orchestrator info with the keystore's key, and has no discovery unless asked", async () => {
    const { sim, lines, error } = await start([
      "-remoteSigner",
      ...onChain,
      "-httpAddr=127.0.0.1:0",
      "-cliAddr=127.0.0.1:0",
    ]);
    expect(error).toBeUndefined();
    expect(sim!.role).toBe("remoteSigner");
    expect(lines.join("\n")).toContain(
      "WARNING: remote signer has no webhook auth. /generate-live-payment is UNAUTHENTICATED and signs payments from this node's deposit. Set -remoteSignerWebhookUrl.",
    );
    const r = await fetch(`${sim!.urls.http}/sign-orchestrator-info`, { method: "POST" });
    expect(r.status).toBe(200);
    const body = (await r.json()) as { address: string; signature: string };
    expect(body.address).toBe(wallet.address);
    expect(verifyMessage(orchestratorInfoMessage(wallet.address), body.signature)).toBe(wallet.address);
    expect((await fetch(`${sim!.urls.http}/sign-orchestrator-info`)).status).toBe(405);
    expect((await fetch(`${sim!.urls.http}/discover-orchestrators`)).status).toBe(404);
    expect((await fetch(`${sim!.urls.http}/healthz`)).status).toBe(200);
  });

  it("-remoteDiscovery with no orchestrator source answers 503 (cache empty), as the node before its first poll", async () => {
    const { sim, lines } = await start([
      "-remoteSigner",
      ...onChain,
      "-httpAddr=127.0.0.1:0",
      "-cliAddr=127.0.0.1:0",
      "-remoteDiscovery",
      "-remoteSignerWebhookUrl=http://127.0.0.1:1/hook?token=secret",
    ]);
    const r = await fetch(`${sim!.urls.http}/discover-orchestrators?caps=text-to-image/m`);
    expect(r.status).toBe(503);
    expect(await r.json()).toEqual({ error: { message: "Service Unavailable Error" } });
    expect(lines.join("\n")).toContain("Using remote signer webhook URL http://127.0.0.1:1/hook?token=xxxxx");
    expect(lines.join("\n")).not.toContain("secret");
  });
});
