import { describe, expect, it } from "vitest";
import { DATA_CACHE_STUB_BYTECODE, DATA_CACHE_STUB_RUNTIME } from "./data-cache-stub.ts";

describe("L2LPTDataCache dev dummy", () => {
  it("init code copies exactly the runtime that follows it and returns it", () => {
    const code = DATA_CACHE_STUB_BYTECODE.slice(2);
    const runtime = DATA_CACHE_STUB_RUNTIME.slice(2);
    // PUSH1 <len> DUP1 PUSH1 <offset> PUSH1 0 CODECOPY PUSH1 0 RETURN
    const len = Number.parseInt(code.slice(2, 4), 16);
    const offset = Number.parseInt(code.slice(8, 10), 16);
    expect(code.slice(offset * 2)).toBe(runtime);
    expect(len).toBe(runtime.length / 2);
  });

  it("runtime returns 32 bytes from memory offset 0 (uint256 zero)", () => {
    expect(DATA_CACHE_STUB_RUNTIME).toBe("0x60206000f3");
  });
});
