// `livepeer-operator python-sdk [discover|orch-info|payment|lv2v ...]`: installs the official Python
// gateway SDK on first use (src/dev/python) and, given a driver command, runs it there.
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { CoreV1Api } from "@kubernetes/client-node";
import { ensureMediaTools } from "../../dev/media-tools.ts";
import { clusterDnsPairs } from "../../dev/pod-dns.ts";
import { ensureGatewaySdk, GATEWAY_DRIVER } from "../../dev/python/environment.ts";
import { loadKubeConfig } from "../../kube/index.ts";
import { type Command, UsageError } from "../command.ts";

const usage = `Usage: livepeer-operator python-sdk [discover|orch-info|payment|lv2v <options>]

Installs, once, Python (Debian trixie's python3 in a root filesystem made with mmdebstrap) and the
official Livepeer gateway SDK (livepeer-gateway 1.0.0 from PyPI, with pinned dependencies) into
the project's cache (~/.cache/livepeer-operator/python, or $LIVEPEER_OPERATOR_CACHE/python), and
prints what is installed as JSON. Needs root (mmdebstrap, unshare and chroot).

With a driver command, runs the SDK (src/dev/python/gateway-driver.py) and prints its JSON:
  discover (--discovery-url URL | --signer-url URL [--signer-headers JSON]) [--caps PIPELINE/MODEL ...]
      the SDK's discover_orchestrators(discovery_url=URL): e.g. a Gateway's discovery hook,
      the orchWebhookUrl key of its <name>-node-hooks Secret; or a remote signer's
      /discover-orchestrators (signer_url=URL)
  orch-info --url https://HOST:PORT [--signer-url URL [--signer-headers JSON]]
      the SDK's get_orch_info(URL[, signer_url=...]): the orchestrator's OrchestratorInfo; on chain
      only a signed request is quoted (ticket parameters for the signer's address)
  payment --url https://HOST:PORT --signer-url URL [--signer-headers JSON] [--type live|lv2v|fixed]
          [--app APP] [--manifest-id ID] [--count N]
      the SDK's PaymentSession(signer_url, info).get_payment(): payments made by the signer
  lv2v --orch-url https://HOST:PORT [URL ...] --model-id APP [--clip FILE | --seconds N]
       [--control JSON] [--wait-seconds S] [--kubeconfig FILE]
      the SDK's start_lv2v: starts a live-video-to-video session (the orchestrators tried in
      turn), publishes the clip (default: N seconds, 2, of a 320x240 test pattern ffmpeg makes)
      over trickle, reads the frames back, closes -> {"job": {...}, "published": n,
      "received": m, "sizes": [...]}. With a kubeconfig (--kubeconfig or KUBECONFIG), the
      cluster's pod DNS names (an orchestrator advertises its own) resolve to the pods' loopback
      IPs, as the cluster's DNS would answer them (npm start's pods)
Exit status: the driver's (1 with {"error": ...} when the SDK fails).`;

export const command: Command = {
  name: "python-sdk",
  summary: "Install the official Python gateway SDK (cached) and run it: discover, orch-info, payment, lv2v.",
  usage,
  async run(args) {
    const [sub, ...rest] = args;
    if (sub !== undefined && !["discover", "orch-info", "payment", "lv2v"].includes(sub)) {
      throw new UsageError(`unknown driver command '${sub}'\n\n${usage}`);
    }
    const sdk = await ensureGatewaySdk();
    if (sub === undefined) {
      process.stdout.write(`${JSON.stringify({ dir: sdk.dir, ...sdk.installed }, null, 2)}\n`);
      return 0;
    }
    const lv2v = sub === "lv2v" ? await lv2vInput(rest) : undefined;
    const result = await sdk.run(GATEWAY_DRIVER, [sub, ...(lv2v?.args ?? rest)], {
      timeoutMs: 120_000,
      ...(lv2v ? { input: lv2v.clip } : {}),
    });
    process.stdout.write(result.stdout);
    process.stderr.write(result.stderr);
    if (result.timedOut)
      process.stderr.write("livepeer-operator python-sdk: the SDK did not finish in 120 s\n");
    return result.code;
  },
};

/** Takes out the CLI's own lv2v options: the clip (base64, the driver's stdin) and the cluster's DNS names as --resolve pairs. */
async function lv2vInput(args: string[]): Promise<{ args: string[]; clip: string }> {
  const rest: string[] = [];
  let clipFile: string | undefined;
  let seconds = 2;
  let kubeconfig = process.env.KUBECONFIG;
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    const value = () => {
      const v = args[++i];
      if (v === undefined) throw new UsageError(`${a} needs a value\n\n${usage}`);
      return v;
    };
    if (a === "--clip") clipFile = value();
    else if (a === "--seconds") {
      seconds = Number(value());
      if (!(seconds > 0 && seconds <= 60))
        throw new UsageError(`--seconds ${args[i]}: give the clip's length in seconds, 1 to 60`);
    } else if (a === "--kubeconfig") kubeconfig = value();
    else rest.push(a);
  }
  let clip: Buffer;
  if (clipFile) {
    try {
      clip = readFileSync(clipFile);
    } catch (err) {
      throw new UsageError(
        `--clip ${clipFile}: ${(err as Error).message}: name a video file ffmpeg can read`,
      );
    }
  } else {
    await ensureMediaTools();
    clip = execFileSync("ffmpeg", [
      ...["-hide_banner", "-loglevel", "error", "-f", "lavfi", "-i", "testsrc=size=320x240:rate=30"],
      ...[
        "-t",
        String(seconds),
        "-c:v",
        "libx264",
        "-g",
        "15",
        "-pix_fmt",
        "yuv420p",
        "-f",
        "mpegts",
        "pipe:1",
      ],
    ]);
  }
  const resolve: string[] = [];
  if (kubeconfig) {
    let kc: ReturnType<typeof loadKubeConfig>["kc"];
    try {
      kc = loadKubeConfig({ kubeconfig }).kc;
    } catch (err) {
      throw new UsageError((err as Error).message);
    }
    const pods = await kc.makeApiClient(CoreV1Api).listPodForAllNamespaces();
    for (const pair of clusterDnsPairs(pods.items)) resolve.push("--resolve", pair);
  }
  return { args: [...rest, ...resolve], clip: clip.toString("base64") };
}
