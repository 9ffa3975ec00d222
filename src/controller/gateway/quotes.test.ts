import { describe, expect, it } from "vitest";
import { hostPort, type Quote, type QuotedOrchestrator, quoteFor } from "./quotes.ts";

const ETH = "0xBd49cD60629fd6585FB4c1cA3Fc2529241207B5e";
const OTHER = "0x2b0814f58c250e09033DA8D3246b93D0245ECA71";
const ZERO = "0x0000000000000000000000000000000000000000";
const q = (orchUri: string | undefined, addresses: string[], pricePerUnit = "1010"): Quote => ({
  orchUri,
  addresses,
  pricePerUnit,
  pixelsPerUnit: 1,
});

describe("which quote a gateway's node lists for an Orchestrator", () => {
  const given = (o: Partial<QuotedOrchestrator>): QuotedOrchestrator => ({
    givenAddress: "127.3.0.2:8935",
    ...o,
  });
  it.each<[string, QuotedOrchestrator, Quote[], string | undefined]>([
    [
      "its eth address as the ticket recipient, any case",
      given({ ethAddress: ETH.toLowerCase() }),
      [q("https://elsewhere:1", [ETH], "7")],
      "7",
    ],
    [
      "its eth address as its own address (local_address)",
      given({ ethAddress: ETH }),
      [q(undefined, [ZERO, ETH], "8")],
      "8",
    ],
    [
      "the address it was given, as the service URI it advertises",
      given({}),
      [q("https://127.3.0.2:8935", [], "9")],
      "9",
    ],
    [
      "its serviceAddr, as the service URI (pod-IP addressing)",
      given({ serviceAddr: "127.0.0.1:8935" }),
      [q("https://127.0.0.1:8935", [OTHER], "10")],
      "10",
    ],
    [
      "the same URI but another eth address than its spec's: not it",
      given({ ethAddress: ETH, serviceAddr: "127.0.0.1:8935" }),
      [q("https://127.0.0.1:8935", [OTHER])],
      undefined,
    ],
    [
      "the zero address says nothing: the URI decides",
      given({ ethAddress: ETH }),
      [q("https://127.3.0.2:8935", [ZERO], "11")],
      "11",
    ],
    [
      "by eth before by URI",
      given({ ethAddress: ETH, serviceAddr: "x:1" }),
      [q("https://x:1", [], "1"), q("https://y:2", [ETH], "2")],
      "2",
    ],
    ["nothing alike", given({ ethAddress: ETH }), [q("https://other:8935", [OTHER])], undefined],
    ["no quotes", given({}), [], undefined],
  ])("%s", (_n, o, quotes, price) => expect(quoteFor(o, quotes)?.pricePerUnit).toBe(price));

  it.each([
    ["https://Orch.example.com:8935", "orch.example.com:8935"],
    ["orch.example.com:8935", "orch.example.com:8935"],
    ["https://orch.example.com", "orch.example.com:443"],
    ["http://10.0.0.5", "10.0.0.5:80"],
    ["[::1]:8935", "[::1]:8935"],
    ["", undefined],
    ["https://", undefined],
  ])("hostPort(%j) is %j", (address, want) => expect(hostPort(address)).toBe(want));
});
