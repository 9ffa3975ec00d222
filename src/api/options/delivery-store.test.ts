import { describe, expect, it } from "vitest";
import { parseDeliveryStore } from "./delivery-store.ts";

describe("parseDeliveryStore", () => {
  it.each([
    ["sqlite:delivery.sqlite", {}, { backend: "sqlite", file: "delivery.sqlite" }],
    ["sqlite:/data/d.db", {}, { backend: "sqlite", file: "/data/d.db" }],
    [
      "postgres",
      { env: "postgres://u:p@h/db" },
      { backend: "postgres", connectionString: "postgres://u:p@h/db" },
    ],
    [
      "postgres",
      { env: "postgres://env", file: () => "postgres://file\n" },
      { backend: "postgres", connectionString: "postgres://file" },
    ],
  ])("%s -> the store it names", (value, sources, expected) => {
    expect(parseDeliveryStore(value, sources)).toEqual(expected);
  });

  it.each([
    ["sqlite:", {}, /needs a file/],
    ["postgres", {}, /LIVEPEER_DELIVERY_POSTGRES_URL/],
    ["postgres", { env: "  " }, /needs a connection string/],
    ["postgres://u:secret@h/db", {}, /not a connection string/],
    ["mysql:x", {}, /use sqlite:PATH/],
  ])("%s is refused with the fix", (value, sources, message) => {
    expect(() => parseDeliveryStore(value, sources)).toThrow(message);
  });

  it("never repeats a connection string given on the command line", () => {
    expect(() => parseDeliveryStore("postgres://u:hunter2@h/db")).toThrow(
      expect.objectContaining({ message: expect.not.stringContaining("hunter2") }),
    );
  });
});
