import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { parseArgv, renderArgv } from "./argv.ts";
import { FlagParseError } from "./errors.ts";
import { FLAG_NAMES, FLAG_TABLE, type FlagName, type NodeFlags } from "./flag-table.ts";

const parseError = (argv: string[]) => {
  try {
    parseArgv(argv);
  } catch (err) {
    return err as FlagParseError;
  }
  throw new Error("expected a parse error");
};

describe("parseArgv", () => {
  it("reads every form Go's flag package accepts", () => {
    const { flags, ignored } = parseArgv([
      "-orchestrator",
      "--transcoder=true",
      "-network",
      "devnet",
      "--maxSessions=12",
      "-blockPollingInterval=0x10",
      "-reward=false",
      "-pricePerUnit",
      "-5",
    ]);
    expect(flags).toEqual({
      orchestrator: true,
      transcoder: true,
      network: "devnet",
      maxSessions: "12",
      blockPollingInterval: 16,
      reward: false,
      pricePerUnit: "-5",
    });
    expect(ignored).toEqual([]);
  });

  it("accepts Go's other boolean spellings", () => {
    expect(parseArgv(["-monitor=1", "-gateway=T", "-reward=FALSE"]).flags).toEqual({
      monitor: true,
      gateway: true,
      reward: false,
    });
  });

  it("stops at the first non-flag and reports what the node would silently ignore", () => {
    const { flags, ignored } = parseArgv(["-orchestrator", "-reward", "false", "-maxSessions", "5"]);
    expect(flags).toEqual({ orchestrator: true, reward: true });
    expect(ignored).toEqual(["false", "-maxSessions", "5"]);
  });

  it("stops after -- and at a lone dash", () => {
    expect(parseArgv(["-gateway", "--", "-monitor"]).ignored).toEqual(["-monitor"]);
    expect(parseArgv(["-gateway", "-", "-monitor"]).ignored).toEqual(["-", "-monitor"]);
  });

  it("the last of repeated flags wins", () => {
    expect(parseArgv(["-maxSessions=3", "-maxSessions=4"]).flags.maxSessions).toBe("4");
  });

  it("stores -datadir under -dataDir and remembers the spelling", () => {
    const parsed = parseArgv(["-datadir", "/data"]);
    expect(parsed.flags).toEqual({ dataDir: "/data" });
    expect(parsed.seen).toEqual(["datadir"]);
  });

  it.each([
    [["-maxsessions=3"], "flag provided but not defined: -maxsessions", 2],
    [["-network"], "flag needs an argument: -network", 2],
    [["-gateway=yes"], 'invalid boolean value "yes" for -gateway', 2],
    [["-blockPollingInterval=5s"], 'invalid value "5s" for -blockPollingInterval', 2],
    [["-discoveryTimeout=soon"], 'invalid value "soon" for -discoveryTimeout', 2],
    [["---gateway"], "bad flag syntax: ---gateway", 2],
    [["-=x"], "bad flag syntax: -=x", 2],
    [["-help"], "usage", 0],
  ])("refuses %j like the node (%s)", (argv, message, exitCode) => {
    const err = parseError(argv);
    expect(err).toBeInstanceOf(FlagParseError);
    expect(err.message).toContain(message);
    expect(err.exitCode).toBe(exitCode);
    expect(err.origin).toBe("command line");
  });
});

describe("renderArgv", () => {
  it("renders -name=value in table order, booleans explicitly", () => {
    expect(
      renderArgv({
        maxSessions: 10,
        orchestrator: true,
        reward: false,
        pixelsPerUnit: 1,
        serviceAddr: "o:8935",
      }),
    ).toEqual([
      "-orchestrator=true",
      "-serviceAddr=o:8935",
      "-pixelsPerUnit=1",
      "-maxSessions=10",
      "-reward=false",
    ]);
  });

  it("skips undefined values and folds -datadir", () => {
    expect(renderArgv({ gateway: true, network: undefined, datadir: "/d" })).toEqual([
      "-gateway=true",
      "-dataDir=/d",
    ]);
  });

  it.each([
    [{ maxsessions: 3 }, '"maxsessions" is not a go-livepeer flag'],
    [{ gateway: "yes" }, "-gateway is a boolean flag"],
    [{ network: true }, "-network takes a string value"],
    [{ blockPollingInterval: 1.5 }, "-blockPollingInterval takes an integer"],
    [{ dataDir: "/a", datadir: "/b" }, "disagree"],
  ])("throws on %j", (values, message) => {
    expect(() => renderArgv(values)).toThrow(message);
  });
});

// Arbitrary well-typed flag sets survive render -> parse unchanged.
const stringFlags = FLAG_NAMES.filter((n) => FLAG_TABLE[n].type === "string" && n !== "datadir");
const arbitraryFlags = fc
  .record({
    strings: fc.dictionary(fc.constantFrom(...stringFlags), fc.string({ maxLength: 20 })),
    bools: fc.dictionary(
      fc.constantFrom(...FLAG_NAMES.filter((n) => FLAG_TABLE[n].type === "bool")),
      fc.boolean(),
    ),
    ints: fc.dictionary(
      fc.constantFrom(...FLAG_NAMES.filter((n) => FLAG_TABLE[n].type === "int")),
      fc.integer({ min: -1_000_000, max: 1_000_000 }),
    ),
  })
  .map(({ strings, bools, ints }) => ({ ...strings, ...bools, ...ints }) as NodeFlags);

describe("argv round trip", () => {
  it("parse(render(flags)) = flags", () => {
    fc.assert(
      fc.property(arbitraryFlags, (flags) => {
        const parsed = parseArgv(renderArgv(flags));
        expect(parsed.ignored).toEqual([]);
        expect(parsed.flags).toEqual(flags);
      }),
      { numRuns: 300 },
    );
  });

  it("every flag of the table round-trips with its default", () => {
    const defaults = Object.fromEntries(
      FLAG_NAMES.filter((n) => n !== "datadir").map((n) => [n, FLAG_TABLE[n].default]),
    ) as Record<FlagName, string>;
    const parsed = parseArgv(renderArgv(defaults)).flags as Record<string, unknown>;
    for (const name of Object.keys(defaults) as FlagName[]) {
      expect(String(parsed[name]), name).toBe(defaults[name]);
    }
  });
});
