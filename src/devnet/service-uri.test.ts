import { describe, expect, it } from "vitest";
import { validateServiceURI } from "./service-uri.ts";

describe("validateServiceURI", () => {
  it("accepts https://host:port as typed", () => {
    expect(validateServiceURI("https://10.0.0.5:8935")).toBe("https://10.0.0.5:8935");
    expect(validateServiceURI("https://orch.example.com:8935/")).toBe("https://orch.example.com:8935");
  });

  it.each([
    ["10.0.0.5:8935", /https/],
    ["http://10.0.0.5:8935", /over https/],
    ["https://u:p@host:8935", /credentials/],
    ["https://host:8935/path", /path/],
    ["not a uri", /not a URI/],
  ])("refuses %s", (input, why) => {
    expect(() => validateServiceURI(input)).toThrow(why);
  });
});
