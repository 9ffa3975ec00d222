import { describe, expect, it } from "vitest";
import { createLogger, formatLine } from "./log.ts";

describe("log lines", () => {
  it("are one line: time, level, component, message, then key=value facts (quoted when needed)", () => {
    const line = formatLine("warn", "controller/webhook/ns/a", "reconcile failed; retrying in 10 ms", {
      failures: 2,
      error: 'GET /x: 403 Forbidden: secrets "s" is forbidden',
      empty: "",
      missing: undefined,
    });
    expect(line).toMatch(
      /^\d{4}-\d\d-\d\dT\S+Z WARN {2}\[controller\/webhook\/ns\/a\] reconcile failed; retrying in 10 ms failures=2 error="GET \/x: 403 Forbidden: secrets \\"s\\" is forbidden"$/,
    );
    expect(line).not.toContain("\n");
  });

  it("filter by level and name child components", () => {
    const lines: string[] = [];
    const log = createLogger("controller", { level: "info", write: (l) => lines.push(l) });
    log.debug("hidden");
    log.child("webhook").info("shown");
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain("[controller/webhook] shown");
  });
});
