// The Webhook reconciler: an ordered list of small named steps, then one status computation and
// a status write only when it changed. Everything is read from the cache; the only writes are
// adopting a Secret the API server generated for this Webhook, and the status.
import { adopt, errorMessage, type KubeClient, keyFor, type ObjectKey, Secrets } from "../../kube/index.ts";
import { Webhooks } from "../../schema/resources.ts";
import type { StoredWebhook as Webhook } from "../../schema/webhook.ts";
import {
  type CacheReader,
  done,
  findCondition,
  type ReconcileContext,
  type ReconcileResult,
  type Reconciler,
  type SetupContext,
  type StatusNews,
  StatusWriter,
  type Verdict,
} from "../runtime/index.ts";
import { checkSharedSecret, checkUrl } from "./checks.ts";
import type { SecretKeys } from "./secret-cache.ts";
import { secretOwnership } from "./secret-ownership.ts";
import { computeStatus, ownedStatus, unknownStatus } from "./status.ts";

interface Observed {
  webhook: Webhook;
  secret: SecretKeys | undefined;
}

type Step = (seen: Observed, ctx: ReconcileContext) => Promise<Verdict> | Verdict;

/** Ready's transitions are told as Events: they say whether deliveries can work. */
const NEWS: StatusNews = { conditions: { Ready: "CheckDeliveryConfiguration" } };
const NOTHING_TO_ADOPT: Verdict = { status: "True", reason: "NoSecretToAdopt", message: "" };

export class WebhookReconciler implements Reconciler {
  readonly #client: KubeClient;
  readonly #cache: CacheReader;
  readonly #status: StatusWriter;

  constructor(ctx: SetupContext) {
    this.#client = ctx.client;
    this.#cache = ctx.cache;
    this.#status = new StatusWriter(ctx, Webhooks, NEWS);
  }

  /** Run in order; the first failing verdict decides Ready. */
  readonly steps: ReadonlyArray<[name: string, step: Step]> = [
    ["own the Secret the API generated", (seen) => this.#adoptGeneratedSecret(seen)],
    ["check the URL", (seen) => checkUrl(seen.webhook)],
    ["check the shared secret", (seen) => checkSharedSecret(seen.webhook, seen.secret)],
  ];

  async reconcile(key: ObjectKey, ctx: ReconcileContext): Promise<ReconcileResult> {
    const webhook = this.#cache.get<Webhook>(Webhooks, key);
    // Deleted: the garbage collector removes the Secrets it owned.
    if (!webhook || webhook.metadata?.deletionTimestamp) return done;
    const seen: Observed = { webhook, secret: this.#sharedSecret(webhook) };
    const verdicts: Verdict[] = [];
    try {
      for (const [name, step] of this.steps) {
        const verdict = await step(seen, ctx);
        verdicts.push(verdict);
        if (verdict.status !== "True") {
          ctx.log.debug(`step "${name}" found a problem`, { reason: verdict.reason });
          break;
        }
      }
    } catch (err) {
      // First visit: give kubectl wait a condition to look at while the error is retried.
      if (!findCondition(webhook.status?.conditions, "Ready")) {
        const unknown = unknownStatus(
          webhook,
          `checking failed, will retry: ${errorMessage(err)}`,
          new Date(),
        );
        await this.#status.write(webhook, ownedStatus(webhook), unknown, ctx.log);
      }
      throw err;
    }
    await this.#status.write(
      webhook,
      ownedStatus(webhook),
      computeStatus(webhook, verdicts, new Date()),
      ctx.log,
    );
    return done;
  }

  #sharedSecret(webhook: Webhook): SecretKeys | undefined {
    const ref = webhook.spec?.sharedSecretRef;
    return ref?.name
      ? this.#cache.get<SecretKeys>(Secrets, keyFor(webhook.metadata?.namespace, ref.name))
      : undefined;
  }

  async #adoptGeneratedSecret({ webhook, secret }: Observed): Promise<Verdict> {
    if (!secret || secretOwnership(webhook, secret) !== "adopt") return NOTHING_TO_ADOPT;
    const name = secret.metadata.name ?? "";
    await adopt(this.#client, Secrets, webhook, secret.metadata.namespace, name, (fresh) => {
      return secretOwnership(webhook, fresh) === "adopt";
    });
    return { status: "True", reason: "SecretAdopted", message: `owns Secret ${name}` };
  }
}
