// Leased deliveries waiting in memory for a slot, first in first out per webhook, so a webhook at
// its share of slots does not hold up the others. A head index rather than Array.shift: the list
// can hold tens of thousands after a burst, and shifting a large array copies it.

export class ReadyList<T extends { webhookId: string }> {
  readonly #byWebhook = new Map<string, { items: T[]; head: number }>();
  #size = 0;

  get size(): number {
    return this.#size;
  }

  push(item: T): void {
    const q = this.#byWebhook.get(item.webhookId);
    if (q) q.items.push(item);
    else this.#byWebhook.set(item.webhookId, { items: [item], head: 0 });
    this.#size++;
  }

  /** Removes and returns the oldest item of the first webhook (by arrival) that `may` start. */
  shift(may: (webhookId: string) => boolean): T | undefined {
    for (const [webhookId, q] of this.#byWebhook) {
      if (!may(webhookId)) continue;
      const item = q.items[q.head++]!;
      this.#size--;
      if (q.head === q.items.length) this.#byWebhook.delete(webhookId);
      else if (q.head >= 1024 && q.head * 2 >= q.items.length) {
        q.items = q.items.slice(q.head);
        q.head = 0;
      }
      return item;
    }
    return undefined;
  }

  /** Removes and returns everything. */
  drain(): T[] {
    const all = [...this.#byWebhook.values()].flatMap((q) => q.items.slice(q.head));
    this.#byWebhook.clear();
    this.#size = 0;
    return all;
  }
}
