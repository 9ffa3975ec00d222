// The generated CRDs against a real API server: they install, every example is accepted (with the
// schema's defaults applied), invalid resources are rejected naming the field (kubectl's strict
// field validation, as users send them), kubectl explain shows the descriptions, and kubectl get
// shows the printer columns.
import { readdirSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { waitFor } from "../../src/dev/cluster/process.ts";
import { kubectl, testNamespace } from "./support/cluster.ts";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const crdDir = path.join(root, "deploy/crds");
const examplesDir = path.join(root, "examples");
const CRDS = [
  "orchestrators.livepeer.org",
  "gateways.livepeer.org",
  "remotesigners.livepeer.org",
  "webhooks.livepeer.org",
];

let ns: Awaited<ReturnType<typeof testNamespace>>;

beforeAll(async () => {
  // Other test files apply the same files: server-side apply with --force-conflicts is idempotent.
  await kubectl(["apply", "--server-side", "--force-conflicts", "-f", crdDir]);
  await kubectl(["wait", "--for=condition=Established", "--timeout=60s", ...CRDS.map((c) => `crd/${c}`)]);
  ns = await testNamespace("crds");
});

afterAll(async () => {
  await ns?.remove();
});

/** kubectl's answer to a server-side dry run of `yaml` with strict field validation: "" when accepted. */
async function rejection(yaml: string): Promise<string> {
  try {
    await kubectl(["create", "--dry-run=server", "--validate=strict", "-n", ns.name, "-f", "-"], yaml);
    return "";
  } catch (err) {
    return (err as Error).message;
  }
}

function getJson(resource: string): Promise<{ spec: Record<string, unknown> }> {
  return kubectl(["get", resource, "-n", ns.name, "-o", "json"]).then((out) => JSON.parse(out));
}

describe("CRDs", () => {
  it.each(CRDS)("%s is Established with its names accepted and a structural schema", async (name) => {
    const crd = JSON.parse(await kubectl(["get", "crd", name, "-o", "json"]));
    const status = (type: string) =>
      crd.status.conditions.find((c: { type: string }) => c.type === type)?.status as string | undefined;
    expect(status("Established")).toBe("True");
    expect(status("NamesAccepted")).toBe("True");
    expect(status("NonStructuralSchema")).toBeUndefined();
  });

  it("serves the short names and the livepeer category", async () => {
    for (const short of ["orch", "gw", "wh"]) {
      await kubectl(["get", short, "-n", ns.name]);
    }
    const resources = await kubectl([
      "api-resources",
      "--api-group=livepeer.org",
      "--categories=livepeer",
      "-o",
      "name",
    ]);
    expect(resources.split("\n").filter(Boolean).sort()).toEqual(CRDS.slice().sort());
  });
});

describe("examples", () => {
  const files = readdirSync(examplesDir).filter((f) => f.endsWith(".yaml"));

  it.each(files)("%s is accepted with strict field validation", async (file) => {
    const out = await kubectl([
      "apply",
      "--server-side",
      "--field-manager=crds-test",
      "--validate=strict",
      "-n",
      ns.name,
      "-f",
      path.join(examplesDir, file),
    ]);
    expect(out).toMatch(/serverside-applied/);
  });

  it("come back with the schema's defaults filled in", async () => {
    await kubectl([
      "apply",
      "--server-side",
      "--field-manager=crds-test",
      "-n",
      ns.name,
      "-f",
      path.join(examplesDir, "orchestrator-rtx3090.yaml"),
    ]);
    const orch = await getJson("orchestrator/rtx3090");
    expect(orch.spec.network).toBe("offchain");
    expect(orch.spec.pixelsPerUnit).toBe(1);
    expect(orch.spec.service).toEqual({ type: "ClusterIP", port: 8935 });
    expect(orch.spec.gpu).toEqual({ count: 2, product: "NVIDIA-GeForce-RTX-3090" });

    await kubectl([
      "apply",
      "--server-side",
      "--field-manager=crds-test",
      "-n",
      ns.name,
      "-f",
      path.join(examplesDir, "gateway-selector.yaml"),
    ]);
    const gw = await getJson("gateway/main");
    expect(gw.spec.ingest).toEqual({ rtmp: { enabled: true, port: 1935 }, http: true });
  });
});

describe("invalid resources are rejected, naming the field", () => {
  const orchestrator = (spec: string) => `apiVersion: livepeer.org/v1alpha1
kind: Orchestrator
metadata:
  name: bad
spec:
${spec}`;
  const webhook = (spec: string) => `apiVersion: livepeer.org/v1alpha1
kind: Webhook
metadata:
  name: bad
spec:
  name: bad
${spec}`;

  it("a webhook url that is not http(s)", async () => {
    const err = await rejection(webhook("  url: ftp://x\n"));
    expect(err).toContain("spec.url");
    expect(err).toContain("^http(s)?://");
  });

  it("an unknown event kind", async () => {
    const err = await rejection(
      webhook("  url: https://example.com/hook\n  events: [stream.started, stream.exploded]\n"),
    );
    expect(err).toContain("spec.events[1]");
    expect(err).toContain("stream.exploded");
  });

  it("an unknown spec field", async () => {
    const err = await rejection(orchestrator("  gpus:\n    count: 1\n"));
    expect(err).toMatch(/unknown field "spec\.gpus"/);
  });

  it("a negative GPU count", async () => {
    const err = await rejection(orchestrator("  gpu:\n    count: -1\n"));
    expect(err).toContain("spec.gpu.count");
    expect(err).toContain("greater than or equal to 0");
  });

  it("maxSessions 0", async () => {
    const err = await rejection(orchestrator("  maxSessions: 0\n"));
    expect(err).toContain("spec.maxSessions");
    expect(err).toContain("greater than or equal to 1");
  });

  it("an on-chain orchestrator without keystoreSecret (CEL rule)", async () => {
    const err = await rejection(
      orchestrator(
        '  network: arbitrum-one-mainnet\n  ethUrl: https://arb1.arbitrum.io/rpc\n  pricePerUnit: "1000"\n',
      ),
    );
    expect(err).toContain("spec.keystoreSecret");
    // The messageExpression: the value that breaks the rule, and the fix.
    expect(err).toContain("keystoreSecret is required when network is arbitrum-one-mainnet (not offchain)");
  });

  it("a gateway with two ways to find orchestrators (CEL rule)", async () => {
    const err = await rejection(`apiVersion: livepeer.org/v1alpha1
kind: Gateway
metadata:
  name: bad
spec:
  orchestrators:
    selector: {}
    addresses: [orch.example.com:8935]
`);
    expect(err).toContain("spec.orchestrators");
    expect(err).toContain(
      "orchestrators sets more than one of selector, addresses and discovery: set exactly one",
    );
  });

  it("an AI model given as a container-runtime tag", async () => {
    const err = await rejection(
      orchestrator("  ai:\n    models:\n      - pipeline: llm\n        model_id: llama3:8b\n"),
    );
    expect(err).toContain("spec.ai.models[0].model_id");
  });

  it("accepts the same resources once fixed (the rejections above are the field, not the kind)", async () => {
    expect(await rejection(webhook("  url: https://example.com/hook\n  events: [stream.started]\n"))).toBe(
      "",
    );
    expect(await rejection(orchestrator("  gpu:\n    count: 0\n  maxSessions: 1\n"))).toBe("");
  });
});

describe("kubectl", () => {
  it("explain orchestrator.spec.gpu prints the field descriptions", async () => {
    let out = "";
    // The API server publishes a new CRD's OpenAPI a moment after it is Established.
    await waitFor(
      "kubectl explain to know orchestrator.spec.gpu",
      async () => {
        out = await kubectl(["explain", "orchestrator.spec.gpu", "--api-version=livepeer.org/v1alpha1"]);
        return out.includes("sessionsPerGpu");
      },
      60_000,
      () => out,
    );
    const text = out.replace(/\s+/g, " "); // explain wraps long descriptions
    expect(text).toContain("GPU Feature Discovery label nvidia.com/gpu.product");
    expect(text).toContain("NVIDIA-GeForce-RTX-3090");
    expect(text).toContain("count <integer>");
    expect(text).toContain("0 or absent: CPU only");
  });

  it("get shows readiness, sessions, GPU and node from the status", async () => {
    await kubectl([
      "apply",
      "--server-side",
      "--field-manager=crds-test",
      "-n",
      ns.name,
      "-f",
      path.join(examplesDir, "orchestrator-rtx3090.yaml"),
    ]);
    const status = {
      status: {
        observedGeneration: 1,
        maxSessions: 8,
        maxSessionsReason: "2 GPUs x 4 streams (NVENC cap 8 / 2 renditions)",
        node: "gpu-rtx3090-a",
        gpuProduct: "NVIDIA-GeForce-RTX-3090",
        conditions: [
          {
            type: "Ready",
            status: "True",
            reason: "Serving",
            message: "",
            observedGeneration: 1,
            lastTransitionTime: "2026-01-02T15:04:05Z",
          },
        ],
      },
    };
    await kubectl([
      "patch",
      "orchestrator/rtx3090",
      "-n",
      ns.name,
      "--subresource=status",
      "--type=merge",
      "-p",
      JSON.stringify(status),
    ]);
    const out = await kubectl(["get", "orch", "rtx3090", "-n", ns.name]);
    const [header, row] = out.trim().split("\n");
    expect(header?.split(/\s+/)).toEqual(["NAME", "READY", "SESSIONS", "GPU", "NODE", "AGE"]);
    expect(row).toMatch(/^rtx3090\s+True\s+8\s+NVIDIA-GeForce-RTX-3090\s+gpu-rtx3090-a\s+/);
  });
});
