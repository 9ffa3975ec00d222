// The RemoteSigner resource: a go-livepeer node in -remoteSigner mode holding the wallet key, which
// signs orchestrator-info requests and payment tickets for keyless Gateways and SDK apps, and asks
// the operator's API (its auth webhook) which tenant may spend and at what price cap.
import { z } from "zod";
import { chainFields, chainRules } from "./chain.ts";
import { withRules } from "./cross-field-rule.ts";
import { customResourceSchema, type Stored } from "./custom-resource.ts";
import { FundingSpecSchema, FundingStatusSchema } from "./duties.ts";
import { GivenOrchestratorSchema, LabelSelectorSchema } from "./gateway.ts";
import { commonStatusFields, statusFacts } from "./status.ts";
import { workloadFields } from "./workload.ts";

/** go-livepeer's default HTTP port, the one a signer listens on unless told otherwise. */
export const REMOTE_SIGNER_HTTP_PORT = 8935;

const DNS_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const WEI = /^[1-9][0-9]{0,77}$/;

function weiSchema(field: string) {
  return z
    .string({
      error: (iss) =>
        typeof iss.input === "number"
          ? `${field} must be a string of wei: quote it, for example "${iss.input}"`
          : `${field} must be a string of wei such as "1000"`,
    })
    .max(78)
    .regex(WEI, {
      error: (iss) =>
        `${field} ${JSON.stringify(iss.input)} is not an amount of wei: write a positive whole number such as "1000" (no sign, unit, decimals or leading zeros)`,
    });
}

export const SignerMaxPriceSchema = z
  .strictObject({
    live: weiSchema("maxPrice.live")
      .optional()
      .describe('Most paid per second of a live stream, in wei (go-livepeer unit "seconds").'),
    lv2v: weiSchema("maxPrice.lv2v")
      .optional()
      .describe(
        'Most paid per 720p-pixel-second of live-video-to-video, in wei (go-livepeer unit "720p-pixel-seconds").',
      ),
    fixed: weiSchema("maxPrice.fixed")
      .optional()
      .describe('Most paid per payment of a fixed-price job, in wei (go-livepeer unit "fixed").'),
  })
  .describe(
    "Price caps the auth webhook answers with (go-livepeer's maxPrice), one per unit; absent: no cap in that unit.",
  );

export const SignerTenantSchema = z
  .strictObject({
    name: z
      .string()
      .min(1)
      .max(63)
      .regex(DNS_LABEL, {
        error: (iss) =>
          `tenants[].name ${JSON.stringify(iss.input)} is not a DNS-1123 label: lower-case letters, digits and '-', for example studio-a`,
      })
      .describe(
        "The tenant: the sub of its signing JWT (livepeer-operator token --scope sign), for example studio-a.",
      ),
    maxPrice: SignerMaxPriceSchema.optional(),
    apps: z
      .array(
        z
          .strictObject({
            app: z
              .string()
              .min(1)
              .max(256)
              .describe(
                "The app (capability) the cap applies to, for example live-video-to-video/streamdiffusion.",
              ),
            maxPrice: SignerMaxPriceSchema.optional(),
          })
          .describe("A price cap for one app (capability) of this tenant."),
      )
      .max(64)
      .optional()
      .describe("Per-app (capability) price caps; they take precedence over the tenant's maxPrice."),
    budget: z
      .strictObject({
        perDay: weiSchema("budget.perDay").optional().describe("Most wei the tenant may spend in 24 hours."),
        perStream: weiSchema("budget.perStream")
          .optional()
          .describe("Most wei the tenant may spend on one stream (one signer session)."),
      })
      .optional()
      .describe("Spend budgets; beyond one the auth webhook refuses with the reason."),
    expiresAt: z.iso
      .datetime({ offset: true })
      .optional()
      .describe("When the tenant's right to spend ends (RFC 3339), for example 2027-01-01T00:00:00Z."),
  })
  .describe("One tenant that may spend through this signer, and its caps.");

export const SignerDiscoverySpecSchema = z
  .strictObject({
    orchestratorSelector: LabelSelectorSchema.describe(
      "The Orchestrators in this namespace the signer offers (the same selector a Gateway's orchestrators.selector takes); {} selects all.",
    ),
    capabilities: z
      .array(z.string().min(1).max(256))
      .max(64)
      .optional()
      .describe(
        "Only orchestrators serving one of these capabilities are offered, for example [live-video-to-video/streamdiffusion]. Absent: all selected.",
      ),
  })
  .describe(
    "Remote discovery (-remoteDiscovery): the signer answers GET /discover-orchestrators with the selected Orchestrators, fed by the operator's discovery hook.",
  );

export const SignerAccessSpecSchema = z
  .strictObject({
    namespaces: z
      .array(
        z
          .string()
          .min(1)
          .max(63)
          .regex(DNS_LABEL, {
            error: (iss) => `access.namespaces[] ${JSON.stringify(iss.input)} is not a namespace name`,
          }),
      )
      .max(64)
      .optional()
      .describe(
        "Namespaces whose pods may reach the signer's HTTP port (SDK apps, for example), besides the Gateways that reference it and the operator.",
      ),
  })
  .describe(
    "Who may reach the signer besides its Gateways and the operator (the NetworkPolicy in front of it).",
  );

const RemoteSignerSpecBase = z
  .strictObject({
    replicas: z
      .int()
      .min(1, { error: "replicas must be 1 or more" })
      .max(64)
      .default(1)
      .describe(
        "Number of interchangeable signer pods behind the Service (signers keep no state). Default 1.",
      ),
    ...chainFields,
    funding: FundingSpecSchema.optional(),
    port: z
      .int()
      .min(1)
      .max(65535)
      .default(REMOTE_SIGNER_HTTP_PORT)
      .describe(
        `The signer's HTTP port (-httpAddr) and its ClusterIP Service's port. Default ${REMOTE_SIGNER_HTTP_PORT}.`,
      ),
    discovery: SignerDiscoverySpecSchema.optional(),
    access: SignerAccessSpecSchema.optional(),
    authCacheSeconds: z
      .int()
      .min(0)
      .max(3600)
      .default(60)
      .describe(
        "How long the signer may skip the auth webhook for a session once allowed (the answer's expiry), in seconds. Default 60.",
      ),
    tenants: z.array(SignerTenantSchema).max(256).optional().describe("Who may spend through this signer."),
    image: workloadFields.image,
    extraArgs: workloadFields.extraArgs,
    podTemplate: workloadFields.podTemplate,
  })
  .describe("The desired remote signer.");

export const RemoteSignerSpecSchema = withRules(RemoteSignerSpecBase, [
  {
    rule: "self.network != 'offchain'",
    fieldPath: ".network",
    reason: "FieldValueRequired",
    message:
      "a remote signer is on chain only: set network (for example devnet or arbitrum-one-mainnet) and keystoreSecret",
    messageExpression:
      '"network is offchain but a remote signer is on chain only: set network (for example devnet or arbitrum-one-mainnet) and keystoreSecret"',
    holds: (s) => s.network !== "offchain",
  },
  ...chainRules,
]);

export const RemoteSignerStatusSchema = z
  .strictObject({
    ...commonStatusFields,
    replicas: z.int().min(0).optional().describe("Signer pods that exist."),
    readyReplicas: z.int().min(0).optional().describe("Signer pods that are Ready."),
    address: z
      .string()
      .regex(/^0x[0-9a-fA-F]{40}$/)
      .optional()
      .describe("The signer's Ethereum address: the account that pays orchestrators."),
    serviceUrl: z
      .string()
      .max(512)
      .optional()
      .describe(
        "The URL Gateways and SDK apps reach the signer at, for example http://signer-a.video.svc.cluster.local:8935.",
      ),
    hookTokenDigest: z
      .string()
      .regex(/^[0-9a-f]{64}$/)
      .optional()
      .describe(
        "SHA-256 (hex) of the token in the signer's auth-hook Secret: the API server checks the signer's webhook calls against it.",
      ),
    orchestrators: z
      .array(GivenOrchestratorSchema)
      .max(1024)
      .optional()
      .describe(
        "spec.discovery: what the signer offers on GET /discover-orchestrators, the selected Orchestrators that are Ready (its discovery hook answers with them).",
      ),
    deposit: statusFacts.deposit,
    reserve: statusFacts.reserve,
    balance: statusFacts.balance,
    funding: FundingStatusSchema.optional(),
  })
  .describe("What the operator observed: conditions, diagnoses and facts.");

export const RemoteSignerSchema = customResourceSchema(
  "RemoteSigner",
  RemoteSignerSpecSchema,
  RemoteSignerStatusSchema,
).describe(
  "A Livepeer remote signer: holds the wallet key, signs and pays for keyless Gateways and SDK apps.",
);

export type RemoteSignerSpec = z.infer<typeof RemoteSignerSpecSchema>;
export type RemoteSignerStatus = z.infer<typeof RemoteSignerStatusSchema>;
export type RemoteSigner = z.infer<typeof RemoteSignerSchema>;
/** A RemoteSigner as read from the cluster (see Stored). */
export type StoredRemoteSigner = Stored<RemoteSignerSpec, RemoteSignerStatus>;
export type SignerTenant = z.infer<typeof SignerTenantSchema>;
export type SignerMaxPrice = z.infer<typeof SignerMaxPriceSchema>;
