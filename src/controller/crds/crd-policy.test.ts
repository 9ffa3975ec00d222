import { describe, expect, it } from "vitest";
import {
  CRD_SCHEMA_DIGEST_ANNOTATION as D,
  CRD_OPERATOR_VERSION_ANNOTATION as V,
} from "../../schema/index.ts";
import { crdVerdict } from "./crd-policy.ts";

const name = "orchestrators.livepeer.org";
const own = { name, annotations: { [V]: "0.2.0", [D]: "aaa" } };
const found = (annotations?: Record<string, string>) => ({ name, annotations });

describe("whether the controller writes its CRDs over the cluster's", () => {
  it("creates a missing CRD", () => {
    expect(crdVerdict(own, undefined).action).toBe("apply");
  });

  it("updates one without a version (Helm's crds/, kubectl, 0.1.0)", () => {
    const v = crdVerdict(own, found());
    expect(v.action).toBe("apply");
    expect(v.reason).toContain("updating it to 0.2.0");
  });

  it("updates one an older operator wrote, and a pre-release of its own version", () => {
    expect(crdVerdict(own, found({ [V]: "0.1.0", [D]: "bbb" })).action).toBe("apply");
    expect(crdVerdict(own, found({ [V]: "0.2.0-dev", [D]: "bbb" })).action).toBe("apply");
  });

  it("leaves one of its own version and schema alone, and rewrites its own version with another schema", () => {
    expect(crdVerdict(own, found({ [V]: "0.2.0", [D]: "aaa" })).action).toBe("keep");
    expect(crdVerdict(own, found({ [V]: "0.2.0", [D]: "bbb" })).action).toBe("apply");
  });

  it("keeps a newer operator's CRD with the same schema (a patch release that changed no field)", () => {
    expect(crdVerdict(own, found({ [V]: "0.2.1", [D]: "aaa" })).action).toBe("keep");
  });

  it("refuses a newer operator's CRD with another schema, naming both versions and the fix", () => {
    const v = crdVerdict(own, found({ [V]: "0.3.0", [D]: "bbb" }));
    expect(v.action).toBe("refuse");
    expect(v.reason).toContain("livepeer-operator 0.3.0, newer than this 0.2.0");
    expect(v.reason).toContain("Run 0.3.0 or newer");
    expect(v.reason).toContain("docs/install.md");
    // A newer pre-release too: 0.3.0-dev > 0.2.0.
    expect(crdVerdict(own, found({ [V]: "0.3.0-dev", [D]: "bbb" })).action).toBe("refuse");
  });

  it("refuses a version it cannot compare, naming the annotation", () => {
    const v = crdVerdict(own, found({ [V]: "latest" }));
    expect(v.action).toBe("refuse");
    expect(v.reason).toContain(`${V}: "latest"`);
  });
});
