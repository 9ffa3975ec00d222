import { describe, expect, it } from "vitest";
import { internalTargetReason } from "./target-policy.ts";

describe("internalTargetReason", () => {
  it.each([
    "http://localhost:3000/hook",
    "http://LOCALHOST./x",
    "http://api.localhost/x",
    "http://127.0.0.1/x",
    "http://127.1.2.3:8080/x",
    "http://2130706433/x",
    "http://0x7f.1/x",
    "http://0.0.0.0/x",
    "http://10.1.2.3/x",
    "http://172.20.0.1/x",
    "http://192.168.1.1/x",
    "http://169.254.169.254/latest/meta-data",
    "http://100.64.0.1/x",
    "http://[::1]/x",
    "http://[::]/x",
    "http://[fd00::1]/x",
    "http://[fe80::1]/x",
    "http://[::ffff:127.0.0.1]/x",
    "http://[::ffff:7f00:1]/x",
  ])("refuses %s with a reason", (url) => {
    expect(internalTargetReason(url)).toMatch(/loopback/);
  });

  it.each([
    "https://example.com/hook",
    "http://93.184.216.34/x",
    "http://[2606:4700::1111]/x",
    "https://172.32.0.1/",
  ])("allows %s", (url) => {
    expect(internalTargetReason(url)).toBeUndefined();
  });
});
