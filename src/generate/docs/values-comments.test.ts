import { describe, expect, it } from "vitest";
import { valuesComments } from "./values-comments.ts";

describe("values.yaml comments by key", () => {
  const yaml = [
    "# Image of the operator.",
    "image:",
    '  tag: ""            # defaults to the appVersion',
    "  pullPolicy: IfNotPresent",
    "",
    "api:",
    "  # Where deliveries go:",
    "  #   sqlite or postgres.",
    "  delivery:",
    "    store: sqlite",
    '    hash: "a#b"',
    "  # A comment above a blank line",
    "",
    "  replicas: 2",
  ].join("\n");
  const comments = valuesComments(yaml);

  it.each([
    ["image", "Image of the operator."],
    ["image.tag", "defaults to the appVersion"],
    ["api.delivery", "Where deliveries go: sqlite or postgres."],
  ])("%s: %s", (key, text) => {
    expect(comments.get(key)).toBe(text);
  });

  it("gives keys without a comment nothing (a # inside quotes is not a comment; a block ended by a blank line is not the next key's)", () => {
    expect(comments.has("image.pullPolicy")).toBe(false);
    expect(comments.has("api.delivery.hash")).toBe(false);
    expect(comments.has("api.replicas")).toBe(false);
  });
});
