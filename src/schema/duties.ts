// The on-chain duties an operator keeps true for a node (issue 22): reward called every round,
// a gateway's deposit and reserve topped up within a daily cap, an orchestrator's reward cut and
// fee share as declared. Spec fields and the status each reports.
import { z } from "zod";

/** ETH as a decimal string ("0.5"), as the node's CLI and status facts write amounts. */
export function ethAmountSchema(field: string) {
  return z
    .string({
      error: (iss) =>
        typeof iss.input === "number"
          ? `${field} must be a string of ETH: quote it, for example "${iss.input}"`
          : `${field} must be a string of ETH such as "0.5"`,
    })
    .max(40)
    .regex(/^\d{1,21}(\.\d{1,18})?$/, {
      error: (iss) =>
        `${field} ${JSON.stringify(iss.input)} is not an amount of ETH: write a decimal like "0.5" or "10" (no sign, unit or exponent, at most 18 decimals)`,
    });
}

export const RewardAssuranceSpecSchema = z
  .strictObject({
    enabled: z
      .boolean()
      .optional()
      .describe(
        "Whether the operator makes sure reward is called every round. Default: on when reward is on (spec.reward, default true) and the node is on chain.",
      ),
    deadline: z
      .number()
      .min(0.05, { error: "rewardAssurance.deadline must be between 0.05 and 0.99 (a share of the round)" })
      .max(0.99, { error: "rewardAssurance.deadline must be between 0.05 and 0.99 (a share of the round)" })
      .default(0.8)
      .describe(
        "Share of the round after which, reward not yet called, the operator asks the node to call it (default 0.8: 80 % into the round). The node itself calls at the round's start.",
      ),
    maxGasPriceGwei: z
      .number()
      .positive({ error: "rewardAssurance.maxGasPriceGwei must be above 0: leave it out for no cap" })
      .max(100000)
      .optional()
      .describe(
        "Gas price cap in gwei: above it the operator waits for a cheaper moment in the round. Absent: no cap.",
      ),
  })
  .describe(
    "Reward assurance: the operator asks the node (CLI port, POST /reward) when reward is late in a round.",
  );

const percent = (field: string) =>
  z
    .number({ error: `${field} must be a number of percent between 0 and 100, for example 10` })
    .min(0, { error: `${field} must be between 0 and 100 (percent), for example 10` })
    .max(100, { error: `${field} must be between 0 and 100 (percent), for example 10` });

export const OnchainSettingsSpecSchema = z
  .strictObject({
    rewardCut: percent("onchain.rewardCut")
      .optional()
      .describe(
        "Share of the reward the orchestrator keeps, in percent (0-100), as on chain (BondingManager rewardCut).",
      ),
    feeShare: percent("onchain.feeShare")
      .optional()
      .describe(
        "Share of the fees passed to delegators, in percent (0-100), as on chain (BondingManager feeShare).",
      ),
    manage: z
      .boolean()
      .default(false)
      .describe(
        "true: the operator sets rewardCut and feeShare through the node (/setOrchestratorConfig, a transaction) when the chain differs, at most once per round. false (default): a difference is the warning finding OnchainSettingsDrift.",
      ),
  })
  .describe("The orchestrator's declared on-chain settings.");

export const FundingSpecSchema = z
  .strictObject({
    minDeposit: ethAmountSchema("funding.minDeposit").describe(
      "Below this deposit (ETH) the gateway is topped up.",
    ),
    minReserve: ethAmountSchema("funding.minReserve").describe(
      "Below this reserve (ETH) the gateway is topped up.",
    ),
    topUpDeposit: ethAmountSchema("funding.topUpDeposit").describe(
      "ETH added to the deposit per top-up (when the deposit is below minDeposit).",
    ),
    topUpReserve: ethAmountSchema("funding.topUpReserve").describe(
      "ETH added to the reserve per top-up (when the reserve is below minReserve).",
    ),
    maxPerDay: ethAmountSchema("funding.maxPerDay").describe(
      "At most this much ETH (deposit + reserve) is added in any 24 hours; beyond it Funded=False with the numbers, and no transaction.",
    ),
  })
  .describe(
    "Funding guard: below a minimum the operator asks the gateway node to top up (CLI port, POST /fundDepositAndReserve), never twice for the same shortfall.",
  );

export const RewardStatusSchema = z
  .strictObject({
    lastRound: z.int().min(0).optional().describe("The last round reward was called in, as the chain says."),
    calledBy: z
      .enum(["node", "operator"])
      .optional()
      .describe(
        "Who called reward in lastRound: the node itself, or the operator through the node's CLI port.",
      ),
    lastAttemptRound: z.int().min(0).optional().describe("The round of the operator's last reward attempt."),
    lastAttemptAt: z
      .string()
      .max(64)
      .optional()
      .describe("When the operator last asked the node to call reward (RFC 3339)."),
    lastError: z
      .string()
      .max(1024)
      .optional()
      .describe("What the node answered to the operator's last failed attempt."),
  })
  .describe("Reward assurance: the last reward call and who made it.");

export const TopUpSchema = z.strictObject({
  at: z.string().max(64).describe("When (RFC 3339)."),
  deposit: z.string().max(40).describe("ETH added to the deposit."),
  reserve: z.string().max(40).describe("ETH added to the reserve."),
  /** The shortfall it answered, so the same one is never topped up twice. */
  shortfall: z.string().max(256).describe("The shortfall it answered (deposit and reserve when seen)."),
});

export const FundingStatusSchema = z
  .strictObject({
    topUps: z.array(TopUpSchema).max(64).optional().describe("Top-ups of the last 24 hours, oldest first."),
    lastError: z.string().max(1024).optional().describe("What the node answered to the last failed top-up."),
    pending: z
      .string()
      .max(256)
      .optional()
      .describe("A shortfall a top-up was sent for and the chain does not show paid yet: not sent again."),
  })
  .describe("Funding guard: recent top-ups and the last failure.");

export const OnchainStatusSchema = z
  .strictObject({
    lastSetRound: z
      .int()
      .min(0)
      .optional()
      .describe("The round the operator last set the on-chain settings in (at most once a round)."),
    lastError: z.string().max(1024).optional().describe("What the node answered to the last failed attempt."),
  })
  .describe("Declared on-chain settings: when the operator last set them.");

export type OnchainStatus = z.infer<typeof OnchainStatusSchema>;
export type RewardAssuranceSpec = z.infer<typeof RewardAssuranceSpecSchema>;
export type OnchainSettingsSpec = z.infer<typeof OnchainSettingsSpecSchema>;
export type FundingSpec = z.infer<typeof FundingSpecSchema>;
export type RewardStatus = z.infer<typeof RewardStatusSchema>;
export type FundingStatus = z.infer<typeof FundingStatusSchema>;
export type TopUp = z.infer<typeof TopUpSchema>;
