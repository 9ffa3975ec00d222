import { describe, expect, it } from "vitest";
import { type MatchableEvent, matchWebhooks, type SubscribedWebhook, subscribes } from "./matching.ts";

const started: MatchableEvent = { userId: "u1", projectId: "p1", kind: "stream.started", streamId: "s1" };
const asset: MatchableEvent = { userId: "u1", projectId: "p1", kind: "asset.ready" };
const hook = (over: Partial<SubscribedWebhook>): SubscribedWebhook => ({
  id: "w",
  userId: "u1",
  projectId: "p1",
  ...over,
});

describe("subscribes", () => {
  it.each<[string, Partial<SubscribedWebhook>, MatchableEvent, boolean]>([
    ["absent events = every kind", {}, started, true],
    ["an empty events list = none", { events: [] }, started, false],
    ["a listed kind", { events: ["stream.idle", "stream.started"] }, started, true],
    ["an unlisted kind", { events: ["stream.idle"] }, started, false],
    ["another user's event", { userId: "u2" }, started, false],
    ["another project's event", { projectId: "p2" }, started, false],
    ["its own stream", { streamId: "s1" }, started, true],
    ["another stream", { streamId: "s2" }, started, false],
    ["a streamless event on a stream-scoped webhook", { streamId: "s1" }, asset, false],
    ["a streamless event on an unscoped webhook", {}, asset, true],
    ["a disabled webhook", { disabled: true }, started, false],
  ])("%s -> %s", (_, over, event, expected) => {
    expect(subscribes(hook(over), event)).toBe(expected);
  });
});

describe("matchWebhooks", () => {
  it("returns each subscribed webhook once, in input order", () => {
    const hooks = [
      hook({ id: "a" }),
      hook({ id: "b", events: ["stream.idle"] }),
      hook({ id: "c", streamId: "s1" }),
      hook({ id: "a" }),
      hook({ id: "d", userId: "u2" }),
    ];
    expect(matchWebhooks(started, hooks)).toEqual(["a", "c"]);
  });
});
