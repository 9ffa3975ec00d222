// When a gateway stream started, agreed by every API replica: the first -authWebhookUrl call for a
// stream records its start in the delivery store, and a repeated call - to this replica, another
// one, or this one after a restart - gets that start back, hence the same stream.started id (one
// event, however the node's calls were spread). The store has a short budget: when it does not
// answer in time (or fails) this replica's own memory decides, as it did before starts were
// shared, and the stream is never held up.
import { type Logger, silentLogger } from "../../process/log.ts";
import type { DeliveryStore } from "../delivery/index.ts";
import type { OpenStreams } from "./open-streams.ts";

/** How long the auth hook waits for the store's answer about a stream's start. */
export const STREAM_START_BUDGET_MS = 250;

export interface StreamStartsOptions {
  local: OpenStreams;
  shared?: Pick<DeliveryStore, "openStream" | "endStream"> | undefined;
  budgetMs?: number | undefined;
  log?: Logger | undefined;
}

export class StreamStarts {
  readonly #o: StreamStartsOptions;
  readonly #log: Logger;
  /** Store failures since its last answer: the first is logged. */
  #failing = 0;

  constructor(o: StreamStartsOptions) {
    this.#o = o;
    this.#log = o.log ?? silentLogger;
  }

  /** The stream's start time (ms). */
  async start(gatewayUid: string, streamId: string, now: number): Promise<number> {
    const { local, shared } = this.#o;
    const mine = local.start(gatewayUid, streamId, now);
    if (!shared) return mine;
    let timer: NodeJS.Timeout | undefined;
    const budget = new Promise<undefined>((resolve) => {
      timer = setTimeout(() => resolve(undefined), this.#o.budgetMs ?? STREAM_START_BUDGET_MS);
    });
    try {
      const agreed = await Promise.race([
        // `now`, not this replica's memory: the stream may have ended on another replica.
        shared.openStream(key(gatewayUid, streamId), now, local.windowMs),
        budget,
      ]);
      if (agreed === undefined) {
        this.#failed(`no answer within ${this.#o.budgetMs ?? STREAM_START_BUDGET_MS} ms`);
        return mine;
      }
      this.#failing = 0;
      local.adopt(gatewayUid, streamId, agreed);
      return agreed;
    } catch (err) {
      this.#failed((err as Error).message);
      return mine;
    } finally {
      clearTimeout(timer);
    }
  }

  end(gatewayUid: string, streamId: string): void {
    this.#o.local.end(gatewayUid, streamId);
    this.#o.shared?.endStream(key(gatewayUid, streamId)).catch((err: unknown) => {
      this.#failed((err as Error).message);
    });
  }

  #failed(why: string): void {
    if (this.#failing++ === 0) {
      this.#log.warn(
        "stream starts are not shared with the other API replicas just now: this replica decides alone (a repeated auth call elsewhere may record a second stream.started)",
        { error: why },
      );
    }
  }
}

// The gateway's uid (a UUID: no "/") first, so the key is unambiguous.
const key = (gatewayUid: string, streamId: string) => `${gatewayUid}/${streamId}`;
