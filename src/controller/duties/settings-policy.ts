// Declared on-chain settings as policy (pure): which of an orchestrator's reward cut and fee
// share differ between the chain and its spec, and whether the operator sets them now (manage:
// true, at most once a round).

/** The protocol's PERC_DIVISOR: percentages on chain are millionths. */
export const PERC_DIVISOR = 1_000_000n;

export interface SettingsDrift {
  field: "rewardCut" | "feeShare";
  /** Percent, as the spec writes it. */
  chain: number;
  spec: number;
}

/** Percent (10.5) as the chain stores it (105000), as the node's eth.FromPerc rounds it. */
export const toMillionths = (percent: number) => BigInt(Math.round(percent * 10_000));
export const toPercent = (millionths: bigint) => Number(millionths) / 10_000;

export function settingsDrift(
  chain: { rewardCut: bigint; feeShare: bigint },
  spec: { rewardCut?: number; feeShare?: number },
): SettingsDrift[] {
  const drift: SettingsDrift[] = [];
  for (const field of ["rewardCut", "feeShare"] as const) {
    const want = spec[field];
    if (want !== undefined && toMillionths(want) !== chain[field]) {
      drift.push({ field, chain: toPercent(chain[field]), spec: want });
    }
  }
  return drift;
}

export const driftText = (drift: readonly SettingsDrift[]) =>
  drift.map((d) => `${d.field} on chain ${d.chain} %, spec ${d.spec} %`).join("; ");

export type SettingsDecision =
  | { kind: "match" }
  | { kind: "drift"; drift: SettingsDrift[]; message: string }
  | { kind: "set"; drift: SettingsDrift[]; rewardCut: number; feeShare: number; message: string };

export function settingsDecision(i: {
  chain: { rewardCut: bigint; feeShare: bigint };
  spec: { rewardCut?: number; feeShare?: number; manage: boolean };
  round: bigint;
  /** The round the operator last set them in. */
  lastSetRound?: bigint;
  lastError?: string;
  /** Active and reward not yet called this round: the protocol refuses a change until it is. */
  awaitsReward: boolean;
}): SettingsDecision {
  const drift = settingsDrift(i.chain, i.spec);
  if (drift.length === 0) return { kind: "match" };
  const text = driftText(drift);
  if (!i.spec.manage) {
    return {
      kind: "drift",
      drift,
      message: `${text}: nobody declared this change; set spec.onchain.manage: true to have the operator set it back, or change the spec`,
    };
  }
  if (i.lastSetRound === i.round) {
    const why = i.lastError ? `it failed: ${i.lastError}` : "the chain does not show it yet";
    return {
      kind: "drift",
      drift,
      message: `${text}: the operator set them in round ${i.round} and ${why}; it tries again next round (at most once a round)`,
    };
  }
  if (i.awaitsReward) {
    return {
      kind: "drift",
      drift,
      message: `${text}: the operator sets them once reward is called this round (the protocol refuses an active orchestrator's change before)`,
    };
  }
  // The node sends the transaction only when given both: the one not declared keeps its chain value.
  return {
    kind: "set",
    drift,
    rewardCut: i.spec.rewardCut ?? toPercent(i.chain.rewardCut),
    feeShare: i.spec.feeShare ?? toPercent(i.chain.feeShare),
    message: `${text}: setting them through the node (POST /setOrchestratorConfig)`,
  };
}
