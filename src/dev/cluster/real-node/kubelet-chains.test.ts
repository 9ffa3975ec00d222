// The kubelet's iptables chains: found, and removed with the jumps to them, on real iptables in a
// network namespace of the test's own (the host's tables are never touched here).
import { execFileSync } from "node:child_process";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  chainKey,
  familyIptables,
  type IptablesOf,
  jumpsTo,
  KUBELET_CHAINS,
  parseChainKey,
  presentKubeletChains,
  removeKubeletChains,
} from "./kubelet-chains.ts";

describe("jumps to a chain, from `iptables -S`", () => {
  it.each([
    ["-A INPUT -j KUBE-FIREWALL", [["-D", "INPUT", "-j", "KUBE-FIREWALL"]]],
    [
      '-A OUTPUT -m comment --comment "kubelet firewall" -j KUBE-FIREWALL',
      [["-D", "OUTPUT", "-m", "comment", "--comment", "kubelet firewall", "-j", "KUBE-FIREWALL"]],
    ],
    ["-A INPUT -j KUBE-FIREWALL-OTHER", []],
    ["-N KUBE-FIREWALL\n-A KUBE-FIREWALL -j DROP", []],
  ])("%s", (listing, expected) => {
    expect(jumpsTo(listing, "KUBE-FIREWALL")).toEqual(expected);
  });

  it("names every chain by family, table and chain, and reads the names back", () => {
    expect(KUBELET_CHAINS).toHaveLength(10);
    for (const c of KUBELET_CHAINS) expect(parseChainKey(chainKey(c))).toEqual(c);
    expect(parseChainKey("iptables/filter/FORWARD")).toBeUndefined();
  });
});

describe("on real iptables (a network namespace of the test's own)", () => {
  const netns = `lpo-chains-${process.pid}`;
  const inNs: IptablesOf = (family) => familyIptables(family, netns);
  const run = (family: string, ...args: string[]) =>
    execFileSync("ip", ["netns", "exec", netns, family, "-w", "5", ...args]);

  beforeAll(() => {
    execFileSync("ip", ["netns", "add", netns]);
  });
  afterAll(() => {
    execFileSync("ip", ["netns", "delete", netns]);
  });

  it("finds the chains the kubelet makes and removes them with every jump to them", async () => {
    expect(await presentKubeletChains(inNs)).toEqual([]);
    // What the kubelet does at start, in both families.
    for (const family of ["iptables", "ip6tables"]) {
      for (const c of KUBELET_CHAINS.filter((k) => k.family === family))
        run(family, "-t", c.table, "-N", c.chain);
      run(
        family,
        "-A",
        "KUBE-FIREWALL",
        "-m",
        "comment",
        "--comment",
        "block incoming localnet connections",
        "-j",
        "DROP",
      );
      run(family, "-A", "INPUT", "-j", "KUBE-FIREWALL");
      run(family, "-A", "OUTPUT", "-j", "KUBE-FIREWALL");
    }
    run("iptables", "-N", "SOMEONE-ELSES");
    run("iptables", "-A", "INPUT", "-j", "SOMEONE-ELSES");

    expect((await presentKubeletChains(inNs)).map(chainKey).sort()).toEqual(
      KUBELET_CHAINS.map(chainKey).sort(),
    );
    const { removed, failures } = await removeKubeletChains(KUBELET_CHAINS, inNs);
    expect(failures).toEqual([]);
    expect(removed).toHaveLength(KUBELET_CHAINS.length);

    expect(await presentKubeletChains(inNs)).toEqual([]);
    const filter = run("iptables", "-S").toString();
    expect(filter).not.toContain("KUBE-");
    expect(filter).toContain("-A INPUT -j SOMEONE-ELSES");
    // A second run has nothing to do.
    expect(await removeKubeletChains(KUBELET_CHAINS, inNs)).toEqual({ removed: [], failures: [] });
  });
});
