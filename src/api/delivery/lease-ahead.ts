// How much fresh work the enqueuing replica takes leased to itself (store EnqueueLease), and
// whether a delivery it holds in memory may still be attempted. A leased delivery waits in this
// replica's ready list until a slot frees; it must start while its lease still outlives the
// attempt, or another replica could claim it mid-attempt (a duplicate send). So the replica takes
// only what it can start in about half the time a lease leaves for waiting, at its recent rate,
// and gives back (releases) any delivery whose lease ran too short while it waited.

export interface LeaseAheadInput {
  maxInFlight: number;
  inFlight: number;
  /** Leased deliveries waiting in memory for a slot. */
  ready: number;
  /** Attempts this replica finished per second, recently. */
  ratePerSecond: number;
  leaseMs: number;
  /** An attempt starts only with at least this much lease left (its deadline and some margin). */
  minLeaseLeftMs: number;
}

/** How many deliveries the next enqueue may take leased (0: none). */
export function leaseAhead(i: LeaseAheadInput): number {
  const waitMs = Math.max(0, i.leaseMs - i.minLeaseLeftMs);
  // At least two rounds of slots (a cold start has no rate yet); more as the rate shows it drains.
  const canStart = Math.max(2 * i.maxInFlight, Math.floor((i.ratePerSecond * waitMs) / 2 / 1000));
  return waitMs === 0 ? 0 : Math.max(0, canStart - i.inFlight - i.ready);
}

/** True when a delivery leased until `leasedUntil` may be attempted at `now`. */
export function leaseLongEnough(leasedUntil: number, now: number, minLeaseLeftMs: number): boolean {
  return leasedUntil - now >= minLeaseLeftMs;
}

/** The lease an attempt needs left: its deadline plus a margin, at most half the lease. */
export function minLeaseLeft(timeoutMs: number, leaseMs: number): number {
  return Math.min(timeoutMs + 5_000, Math.floor(leaseMs / 2));
}
