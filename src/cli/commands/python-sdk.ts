// `livepeer-operator python-sdk [discover|orch-info|payment ...]`: installs the official Python gateway
// SDK on first use (src/dev/python) and, given a driver command, runs it there.
import { ensureGatewaySdk, GATEWAY_DRIVER } from "../../dev/python/environment.ts";
import { type Command, UsageError } from "../command.ts";

const usage = `Usage: livepeer-operator python-sdk [discover|orch-info|payment <options>]

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
Exit status: the driver's (1 with {"error": ...} when the SDK fails).`;

export const command: Command = {
  name: "python-sdk",
  summary: "Install the official Python gateway SDK (cached) and run it: discover, orch-info, payment.",
  usage,
  async run(args) {
    const [sub, ...rest] = args;
    if (sub !== undefined && sub !== "discover" && sub !== "orch-info" && sub !== "payment") {
      throw new UsageError(`unknown driver command '${sub}'\n\n${usage}`);
    }
    const sdk = await ensureGatewaySdk();
    if (sub === undefined) {
      process.stdout.write(`${JSON.stringify({ dir: sdk.dir, ...sdk.installed }, null, 2)}\n`);
      return 0;
    }
    const result = await sdk.run(GATEWAY_DRIVER, [sub, ...rest], { timeoutMs: 120_000 });
    process.stdout.write(result.stdout);
    process.stderr.write(result.stderr);
    if (result.timedOut)
      process.stderr.write("livepeer-operator python-sdk: the SDK did not finish in 120 s\n");
    return result.code;
  },
};
