// A token bucket for the HTTP requests sent to one RPC endpoint: `perSecond` on average, bursts
// of up to `burst`. Pure arithmetic over the caller's clock, so it is tested without waiting.

export class RequestPacer {
  private readonly perSecond: number;
  private readonly burst: number;
  private tokens: number;
  private at: number;

  constructor(perSecond: number, burst: number, now: number) {
    if (!(perSecond > 0)) throw new Error(`requests per second must be above 0, not ${perSecond}`);
    this.perSecond = perSecond;
    this.burst = Math.max(1, burst);
    this.tokens = this.burst;
    this.at = now;
  }

  private refill(now: number): void {
    if (now > this.at) {
      this.tokens = Math.min(this.burst, this.tokens + ((now - this.at) / 1000) * this.perSecond);
      this.at = now;
    }
  }

  /** Takes a token and returns 0, or returns the ms until one is available (taking nothing). */
  take(now: number): number {
    this.refill(now);
    if (this.tokens >= 1) {
      this.tokens -= 1;
      return 0;
    }
    return Math.ceil(((1 - this.tokens) / this.perSecond) * 1000);
  }
}
