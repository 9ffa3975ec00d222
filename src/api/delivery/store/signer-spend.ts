// What remote signers' tenants spent, as the auth webhook counted it (src/api/signer-auth): one
// row per payment session (its start as first seen and its spend so far) and one per tenant per
// UTC day. Replicas share them: a session's spend only grows (the larger count wins) and a day
// grows by what each session's row grew, so a call counted by two replicas is counted once.

/** One allowed payment of a session, as the webhook counted it. */
export interface SignerSpendRecord {
  /** The RemoteSigner, "namespace/name". */
  signer: string;
  /** The signer's payment session (RemotePaymentState.StateID). */
  stateId: string;
  tenant: string;
  /** The session's LastUpdate when first seen (ms) and its SequenceNumber then. */
  startedAt: number;
  startSeq: number;
  /** Wei the session spent up to and with this payment. */
  spent: bigint;
  /** The UTC day the payment counts in, YYYY-MM-DD. */
  day: string;
  at: number;
}

/** A session as the store keeps it. */
export interface SignerSession {
  signer: string;
  stateId: string;
  tenant: string;
  startedAt: number;
  startSeq: number;
  spent: bigint;
}

export interface SignerSpendDay {
  signer: string;
  tenant: string;
  day: string;
  spent: bigint;
}

/** What the store holds after a batch: the record's session (as first recorded) and its tenant's day. */
export interface SignerSpendResult {
  session: SignerSession;
  dayTotal: bigint;
}

/** What a batch adds to each tenant day, keyed by `dayKey`, in one lock order. */
export class DayGrowth {
  readonly #growth = new Map<
    string,
    { signer: string; tenant: string; day: string; grew: bigint; at: number }
  >();

  add(signer: string, tenant: string, day: string, grew: bigint, at: number): string {
    const key = `${signer}\n${tenant}\n${day}`;
    const g = this.#growth.get(key);
    if (g) {
      g.grew += grew;
      g.at = Math.max(g.at, at);
    } else this.#growth.set(key, { signer, tenant, day, grew, at });
    return key;
  }

  /** Each day once, sorted (replicas lock day rows in the same order). */
  days(): { key: string; signer: string; tenant: string; day: string; grew: bigint; at: number }[] {
    return [...this.#growth]
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([key, g]) => ({ key, ...g }));
  }
}

export interface SignerSpendSnapshot {
  days: SignerSpendDay[];
  sessions: SignerSession[];
}

/** Sessions and days are kept this long after their last payment (a day row: a week, for people reading it). */
export const SIGNER_SESSION_KEEP_MS = 2 * 24 * 3_600_000;
export const SIGNER_DAY_KEEP_MS = 8 * 24 * 3_600_000;

/**
 * A record against the stored session: the row to keep and what the tenant's day grows by. The
 * first start and tenant stay; a smaller count (another replica's older view) adds nothing.
 */
export function mergeSession(
  stored: SignerSession | undefined,
  r: SignerSpendRecord,
): { session: SignerSession; grew: bigint } {
  if (!stored) {
    const { signer, stateId, tenant, startedAt, startSeq, spent } = r;
    return { session: { signer, stateId, tenant, startedAt, startSeq, spent }, grew: spent };
  }
  if (stored.tenant !== r.tenant || r.spent <= stored.spent) return { session: stored, grew: 0n };
  return { session: { ...stored, spent: r.spent }, grew: r.spent - stored.spent };
}

/** One lock order for a batch (several replicas write the same rows). */
export function inLockOrder(batch: readonly SignerSpendRecord[]): SignerSpendRecord[] {
  return batch
    .map((r, i) => ({ r, i }))
    .sort((a, b) =>
      a.r.signer < b.r.signer
        ? -1
        : a.r.signer > b.r.signer
          ? 1
          : a.r.stateId < b.r.stateId
            ? -1
            : a.r.stateId > b.r.stateId
              ? 1
              : a.i - b.i,
    )
    .map((x) => x.r);
}

const DAY_MS = 86_400_000;
// The last day asked for: every payment asks, and almost all fall on the same day.
let lastDay = { start: 0, text: "1970-01-01" };

/** The UTC day of a time, YYYY-MM-DD. */
export function utcDay(ms: number): string {
  if (ms >= lastDay.start && ms < lastDay.start + DAY_MS) return lastDay.text;
  const start = Math.floor(ms / DAY_MS) * DAY_MS;
  const text = new Date(ms).toISOString().slice(0, 10);
  if (Number.isFinite(start)) lastDay = { start, text };
  return text;
}

/** What a written batch tells the ledger: each day's total, and the sessions stored otherwise than recorded. */
export interface SignerSpendBatchResult {
  /** Each tenant day the batch touched, with the store's total after it. */
  days: SignerSpendDay[];
  /**
   * The sessions the store holds with another tenant or start than the batch's last record of
   * them, or a larger spend (another replica's count): the store's row wins. The rest are as the
   * ledger counted them and are left out (less for the thread to send).
   */
  sessions: SignerSession[];
}

/** Per-record results (recordSignerSpend) as a batch result. */
export function batchResult(
  batch: readonly SignerSpendRecord[],
  results: readonly SignerSpendResult[],
): SignerSpendBatchResult {
  const days = new Map<string, SignerSpendDay>();
  const last = new Map<string, { r: SignerSpendRecord; s: SignerSession }>();
  batch.forEach((r, i) => {
    const { session, dayTotal } = results[i]!;
    const key = `${r.signer}\n${session.tenant}\n${r.day}`;
    const d = days.get(key);
    if (!d) days.set(key, { signer: r.signer, tenant: session.tenant, day: r.day, spent: dayTotal });
    else if (dayTotal > d.spent) d.spent = dayTotal;
    last.set(`${r.signer}\n${r.stateId}`, { r, s: session });
  });
  const sessions: SignerSession[] = [];
  for (const { r, s } of last.values()) {
    if (
      s.tenant !== r.tenant ||
      s.startedAt !== r.startedAt ||
      s.startSeq !== r.startSeq ||
      s.spent > r.spent
    )
      sessions.push(s);
  }
  return { days: [...days.values()], sessions };
}
