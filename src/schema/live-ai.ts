// Live AI on an Orchestrator (spec.ai.live): apps served by live runners (go-livepeer 0.9's Live
// Runner, doc/live-runner.md), each app a set of runner pods the operator runs on GPU nodes and
// registers with the node, statically (-liveRunnerConfig) or dynamically (-useLiveRunners with
// -orchSecret, the runners heartbeating). Its own file: the batch AI schema changes without it.
import { z } from "zod";
import { withRules } from "./cross-field-rule.ts";
import { GPU_PRODUCT_PATTERN } from "./gpu.ts";

/** The live pipeline every app serves: the runner's `app` is `live-video-to-video/<id>`. */
export const LIVE_PIPELINE = "live-video-to-video";

/** The units go-livepeer takes a live runner's USD price in (ai/runner/live_runner.go). */
export const LIVE_PRICE_UNITS = ["hour", "720p", "fixed"] as const;

const APP_ID = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const USD = /^[0-9]{1,9}(\.[0-9]{1,9})?$/;

export const LivePriceSchema = withRules(
  z
    .strictObject({
      usd: z
        .string()
        .max(19)
        .regex(USD, {
          error: 'live price.usd must be a decimal number of US dollars, for example "0.50"',
        })
        .describe('The price in US dollars, a positive decimal, for example "0.50".'),
      unit: z
        .enum(LIVE_PRICE_UNITS)
        .default("hour")
        .describe(
          "What the price buys (go-livepeer's price_info.unit): hour (per hour of session), 720p (per second of 720p at 30 fps, scaled by pixels) or fixed (once per session). Default hour.",
        ),
    })
    .describe(
      "What a session of this app costs, in USD as go-livepeer takes it (price_info; on chain the node converts it to wei with its price feed, off chain it is not advertised).",
    ),
  [
    {
      rule: "double(self.usd) > 0.0",
      fieldPath: ".usd",
      reason: "FieldValueInvalid",
      message: 'live price.usd must be above 0 (go-livepeer refuses a price of 0), for example "0.50"',
      messageExpression:
        '"live price.usd is " + self.usd + ": it must be above 0 (go-livepeer refuses a price of 0), for example \\"0.50\\""',
      holds: (p) => Number(p.usd) > 0,
    },
  ],
);

const LiveAppBase = z
  .strictObject({
    id: z
      .string()
      .min(1)
      .max(40)
      .regex(APP_ID, {
        error:
          "live app id must be lower-case letters, digits and dashes (a DNS label of at most 40), for example streamdiffusion",
      })
      .describe(
        "The app (the model of live-video-to-video), for example streamdiffusion: advertised as the app live-video-to-video/<id>, which gateways and the SDK ask for (caps=live-video-to-video/<id>).",
      ),
    image: z
      .string()
      .min(1)
      .max(512)
      .optional()
      .describe(
        "The runner image. Absent: the image go-livepeer runs for the app (livepeer/ai-runner:live-app-<id>).",
      ),
    gpus: z
      .int()
      .min(0)
      .max(8)
      .default(1)
      .describe(
        "GPUs per runner pod (nvidia.com/gpu). Default 1. Any GPU, encoder-less A100/H100 included. 0 runs on CPU (tests only).",
      ),
    gpuProduct: z
      .string()
      .max(63)
      .regex(GPU_PRODUCT_PATTERN, {
        error:
          "live gpuProduct must be a nvidia.com/gpu.product label value, for example NVIDIA-H100-80GB-HBM3",
      })
      .optional()
      .describe(
        "Pin the runners to one GPU model (nvidia.com/gpu.product), for example NVIDIA-H100-80GB-HBM3.",
      ),
    replicas: z
      .int()
      .min(0)
      .max(256)
      .optional()
      .describe(
        "Runner pods, each serving one session at a time. Absent with onePerGpu absent: 1. 0 keeps the app declared with no runners.",
      ),
    onePerGpu: z
      .boolean()
      .optional()
      .describe(
        "true: as many runners as the suitable GPU nodes have GPUs free (their nvidia.com/gpu.count, less what the video pod, the batch runners and the apps listed earlier take), each with `gpus` GPUs. Excludes replicas.",
      ),
    price: LivePriceSchema,
    warmUpSeconds: z
      .int()
      .min(0)
      .max(1800)
      .default(120)
      .describe(
        "How long a runner may take to load its pipeline before it must answer /health (its startup probe; the ai-runner itself gives up after 180 s). Default 120.",
      ),
  })
  .describe("One live app: its runner pods and what a session costs.");

export const LiveAppSchema = withRules(LiveAppBase, [
  {
    rule: "!(has(self.replicas) && has(self.onePerGpu) && self.onePerGpu)",
    fieldPath: ".onePerGpu",
    reason: "FieldValueForbidden",
    message:
      "live app sets both replicas and onePerGpu: true; keep one of them (replicas: a fixed count, onePerGpu: one runner per free GPU)",
    messageExpression:
      '"live app " + self.id + " sets both replicas and onePerGpu: true; keep one of them (replicas: a fixed count, onePerGpu: one runner per free GPU)"',
    holds: (a) => !(a.replicas !== undefined && a.onePerGpu === true),
  },
  {
    rule: "!(has(self.onePerGpu) && self.onePerGpu && self.gpus == 0)",
    fieldPath: ".onePerGpu",
    reason: "FieldValueInvalid",
    message: "live app has onePerGpu: true but gpus: 0; give each runner a GPU (gpus: 1) or set replicas",
    messageExpression:
      '"live app " + self.id + " has onePerGpu: true but gpus: 0: give each runner a GPU (gpus: 1) or set replicas"',
    holds: (a) => !(a.onePerGpu === true && a.gpus === 0),
  },
]);

export const LiveAiSpecSchema = z
  .strictObject({
    registration: z
      .enum(["static", "dynamic"])
      .default("static")
      .describe(
        "How the node learns of the runners. static (default): the operator renders each runner's runner_url and health_url into -liveRunnerConfig (a Secret), the node polls each health_url every ~5 s. dynamic: -useLiveRunners with -orchSecret (a Secret handed to the node and the runners), the runners register and heartbeat (POST /runners/heartbeat); the runner image must speak that protocol (a runner SDK).",
      ),
    apps: z
      .array(LiveAppSchema)
      .min(1)
      .max(16)
      .superRefine((apps, ctx) => {
        const seen = new Set<string>();
        apps.forEach((a, i) => {
          if (seen.has(a.id))
            ctx.addIssue({
              code: "custom",
              path: [i, "id"],
              message: `live app ${a.id} is listed twice: each app once (raise its replicas instead)`,
            });
          seen.add(a.id);
        });
      })
      .meta({ "x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["id"] })
      .describe(
        'The apps, for example {id: streamdiffusion, gpus: 1, replicas: 2, price: {usd: "0.50", unit: hour}}.',
      ),
  })
  .describe(
    "Live video AI through go-livepeer's Live Runner: the operator runs each app's runner pods on GPU nodes and registers them with the node.",
  );

export const LiveAppStatusSchema = z
  .strictObject({
    id: z.string().max(40).describe("The app id."),
    app: z.string().max(128).describe("What the node advertises, live-video-to-video/<id>."),
    desired: z.int().min(0).describe("Runner pods wanted."),
    registered: z
      .int()
      .min(0)
      .describe("Runners the node has registered (static: in -liveRunnerConfig, dynamic: heartbeating)."),
    healthy: z.int().min(0).describe("Registered runners the node offers (ready in its GET /discovery)."),
    inSession: z.int().min(0).describe("Runners serving a session now (the node's capacity_used)."),
    capacity: z.int().min(0).describe("Sessions the app can take at once: one per healthy runner."),
    price: z.string().max(64).describe('The price as declared, for example "0.50 USD/hour".'),
    ready: z.boolean().describe("Every desired runner is healthy."),
    reason: z
      .string()
      .max(2048)
      .describe(
        "Why runners are not registered or healthy (image pull, warm-up, health failing, heartbeat stale, capacity full), or what serves.",
      ),
  })
  .describe("One live app's runners as the operator and the node see them.");

export type LiveAiSpec = z.infer<typeof LiveAiSpecSchema>;
export type LiveAppSpec = z.infer<typeof LiveAppSchema>;
export type LiveAppStatus = z.infer<typeof LiveAppStatusSchema>;
