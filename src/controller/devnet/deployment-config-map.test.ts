import { describe, expect, it } from "vitest";
import {
  DEVNET_KEYS,
  DEVNET_LABELS,
  type DevnetLookup,
  devnetConfigMap,
  devnetDataFacts,
  isDevnetConfigMap,
  resolveDevnet,
} from "./deployment-config-map.ts";

const CONTROLLER = "0x5FbDB2315678afecb367f032d93F642f64180aa3";
const controllerJson = JSON.stringify({ address: CONTROLLER, abi: [{ type: "function", name: "paused" }] });
const full = { ethUrl: "http://127.0.0.1:8545", "Controller.json": controllerJson };
const found = (data: Record<string, string>): DevnetLookup => ({ found: true, data });

describe("resolveDevnet", () => {
  it.each([
    ["no spec.devnet", {}, found(full), { state: "unused" }],
    [
      "both values explicit: the ConfigMap is not read",
      { devnet: "dn", ethUrl: "http://chain:8545", ethController: CONTROLLER },
      { found: false },
      { state: "unused" },
    ],
    [
      "fills both from the ConfigMap",
      { devnet: "dn" },
      found(full),
      { state: "resolved", configMap: "dn", ethUrl: "http://127.0.0.1:8545", controller: CONTROLLER },
    ],
    [
      "an explicit ethUrl wins; only the Controller is read",
      { devnet: "dn", ethUrl: "http://other:8545" },
      found({ "Controller.json": controllerJson }),
      { state: "resolved", configMap: "dn", controller: CONTROLLER },
    ],
    [
      "an explicit ethController wins; only ethUrl is read",
      { devnet: "dn", ethController: CONTROLLER },
      found({ ethUrl: "ws://chain:8546" }),
      { state: "resolved", configMap: "dn", ethUrl: "ws://chain:8546" },
    ],
  ] as const)("%s", (_name, spec, lookup, want) => {
    expect(resolveDevnet(spec, "ns", lookup as DevnetLookup)).toEqual(want);
  });

  it.each([
    [
      "missing ConfigMap",
      { found: false },
      "DevnetConfigMapNotFound",
      /ConfigMap ns\/dn .*not found.*devnet configmap --name dn --namespace ns/,
    ],
    [
      "ConfigMap without the labels",
      { found: false, unlabelled: true },
      "DevnetConfigMapUnlabelled",
      /kubectl label configmap dn -n ns app\.kubernetes\.io\/managed-by=livepeer-operator app\.kubernetes\.io\/component=devnet-deployment/,
    ],
    [
      "no ethUrl key",
      found({ "Controller.json": controllerJson }),
      "DevnetKeyMissing",
      /ConfigMap ns\/dn has no key ethUrl: .*or set spec\.ethUrl/,
    ],
    [
      "ethUrl not a URL",
      found({ ...full, ethUrl: "chain:8545" }),
      "DevnetKeyInvalid",
      /key ethUrl is "chain:8545"/,
    ],
    [
      "no Controller.json",
      found({ ethUrl: "http://c:8545" }),
      "DevnetKeyMissing",
      /has no key Controller\.json: .*or set spec\.ethController/,
    ],
    [
      "Controller.json not JSON",
      found({ ...full, "Controller.json": "{nope" }),
      "DevnetKeyInvalid",
      /key Controller\.json has no "address"/,
    ],
    [
      "Controller.json with a bad address",
      found({ ...full, "Controller.json": '{"address":"0x12"}' }),
      "DevnetKeyInvalid",
      /key Controller\.json has no "address"/,
    ],
    ["empty ConfigMap", { found: true, data: undefined }, "DevnetKeyMissing", /no key ethUrl/],
  ] as const)("%s: unresolved, naming the ConfigMap, the key and the fix", (_n, lookup, reason, message) => {
    const r = resolveDevnet({ devnet: "dn" }, "ns", lookup as DevnetLookup);
    expect(r).toMatchObject({ state: "unresolved", configMap: "dn", reason });
    expect(r.state === "unresolved" && r.message).toMatch(message);
  });
});

describe("devnetDataFacts (what the cache keeps)", () => {
  it.each([
    [
      "keeps ethUrl and the Controller's address, drops ABIs and other contracts",
      { ...full, "BondingManager.json": controllerJson },
      { ethUrl: full.ethUrl, "Controller.json": JSON.stringify({ address: CONTROLLER }) },
    ],
    [
      "keeps a broken Controller.json short, so it can still be explained",
      { "Controller.json": `{${"x".repeat(500)}` },
      { "Controller.json": `{${"x".repeat(119)}` },
    ],
    ["nothing", undefined, {}],
  ] as const)("%s", (_n, data, want) => {
    expect(devnetDataFacts(data as Record<string, string> | undefined)).toEqual(want);
  });

  it("the kept facts resolve the same as the full ConfigMap", () => {
    const spec = { devnet: "dn" };
    expect(resolveDevnet(spec, "ns", found(devnetDataFacts(full)))).toEqual(
      resolveDevnet(spec, "ns", found(full)),
    );
  });
});

describe("devnetConfigMap (the `devnet configmap` export)", () => {
  it("holds each contract's {address, abi}, .chainId and ethUrl, with the labels the operator selects", () => {
    const cm = devnetConfigMap({
      name: "devnet",
      namespace: "video",
      ethUrl: "http://127.0.0.1:8545",
      chainId: 1337,
      contracts: {
        Controller: { address: CONTROLLER, abi: [] },
        BondingManager: { address: CONTROLLER, abi: [1] },
      },
    });
    expect(cm.metadata).toEqual({ name: "devnet", namespace: "video", labels: DEVNET_LABELS });
    expect(cm.data).toEqual({
      ethUrl: "http://127.0.0.1:8545",
      ".chainId": "1337",
      "BondingManager.json": JSON.stringify({ address: CONTROLLER, abi: [1] }),
      "Controller.json": JSON.stringify({ address: CONTROLLER, abi: [] }),
    });
    expect(isDevnetConfigMap(cm as never)).toBe(true);
    expect(resolveDevnet({ devnet: "devnet" }, "video", found(cm.data!))).toMatchObject({
      state: "resolved",
      controller: CONTROLLER,
    });
    expect(Object.keys(cm.data!)).toContain(DEVNET_KEYS.controller);
  });

  it("refuses a deployment larger than a ConfigMap holds", () => {
    const abi = ["x".repeat(1024 * 1024)];
    expect(() =>
      devnetConfigMap({ name: "d", ethUrl: "http://c:1", contracts: { Big: { address: CONTROLLER, abi } } }),
    ).toThrow(/more than a ConfigMap holds/);
  });
});
