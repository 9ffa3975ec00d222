// The real node's FORWARD rules: named after its bridge, accepting only that bridge's traffic.
import { describe, expect, it } from "vitest";
import { acceptRules, forwardChain, jumpRule } from "./forwarding.ts";

describe("a real node's forwarding rules", () => {
  it.each([
    ["lpo-br0", "LPO-FWD-lpo-br0"],
    ["lpo-br63", "LPO-FWD-lpo-br63"],
  ])("bridge %s gets its own chain %s (within iptables' 28-character limit)", (bridge, chain) => {
    expect(forwardChain(bridge)).toBe(chain);
    expect(chain.length).toBeLessThanOrEqual(28);
  });

  it("accepts traffic into and out of its own bridge only", () => {
    expect(acceptRules("lpo-br3")).toEqual([
      ["-A", "LPO-FWD-lpo-br3", "-i", "lpo-br3", "-j", "ACCEPT"],
      ["-A", "LPO-FWD-lpo-br3", "-o", "lpo-br3", "-j", "ACCEPT"],
    ]);
  });

  it("is jumped to from FORWARD with a comment naming the project", () => {
    const jump = jumpRule("lpo-br3");
    expect(jump[0]).toBe("FORWARD");
    expect(jump.slice(-2)).toEqual(["-j", "LPO-FWD-lpo-br3"]);
    expect(jump.join(" ")).toContain("livepeer-operator");
  });
});
