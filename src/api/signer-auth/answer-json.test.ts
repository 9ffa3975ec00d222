import { describe, expect, it } from "vitest";
import { answerJson } from "./answer-json.ts";
import type { AuthAnswer } from "./decision.ts";

const maxPrice = { price: "1500", unit: "seconds", currency: "wei" as const };

describe("answerJson", () => {
  it.each<[string, AuthAnswer]>([
    ["an allowance with expiry and cap", { status: 200, expiry: 1_795_860_060, auth_id: "acme", maxPrice }],
    ["an allowance without expiry", { status: 200, auth_id: "acme" }],
    ["an allowance without a cap", { status: 200, expiry: 1, auth_id: "acme" }],
    ["a tenant name JSON must escape", { status: 200, auth_id: 'a"c\\me\n\u2028' }],
    ["a refusal", { status: 402, reason: "tenant 'acme' spent its daily budget" }],
    ["another key order", { auth_id: "acme", status: 200, maxPrice, expiry: 5 }],
    ["the same cap object again (its text kept)", { status: 200, auth_id: "beta", maxPrice }],
    ["a bare status", { status: 200 }],
    ["an empty answer", {} as AuthAnswer],
    ["a field left undefined", { status: 200, expiry: undefined, auth_id: "acme" }],
  ])("%s: the text JSON.stringify gives", (_, answer) => {
    expect(answerJson(answer)).toBe(JSON.stringify(answer));
    expect(JSON.parse(answerJson(answer))).toEqual(answer);
  });
});
