// The rooms of the house and which way imports may run between them (docs/layout.md). A rule
// broken here is a design change: move the shared code down a floor instead of reaching across.
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const src = path.dirname(fileURLToPath(import.meta.url));

/** Every TypeScript file under `dir` (tests included: a test is code of its room too). */
function filesUnder(dir: string): string[] {
  return readdirSync(path.join(src, dir), { recursive: true, encoding: "utf8" })
    .filter((f) => f.endsWith(".ts"))
    .map((f) => path.join(src, dir, f));
}

/** What a file imports (static, dynamic and re-exports), as written. */
function importsOf(source: string): string[] {
  const specs = new Set<string>();
  const patterns = [
    /^\s*(?:import|export)\s[^;]*?\sfrom\s*["']([^"']+)["']/gms,
    /^\s*import\s*["']([^"']+)["']/gm,
    /\bimport\(\s*["']([^"']+)["']\s*\)/g,
  ];
  for (const re of patterns) for (const m of source.matchAll(re)) specs.add(m[1]!);
  return [...specs];
}

/** The room (`src/<top>`) a relative import lands in, or the package name. */
function target(file: string, spec: string): string {
  if (!spec.startsWith("."))
    return spec.startsWith("@") ? spec.split("/").slice(0, 2).join("/") : spec.split("/")[0]!;
  const rel = path.relative(src, path.resolve(path.dirname(file), spec));
  return rel.startsWith("..") ? rel : `src/${rel.split(path.sep)[0]}`;
}

interface Rule {
  room: string;
  forbidden: string[];
  why: string;
  /** The rule binds the room's production files only (its tests may use a stand-in). */
  productionOnly?: boolean;
}

/** The stand-ins and the tools that play the network: never part of what the operator runs. */
const STAND_INS = ["src/simulator", "src/media", "src/devnet"];

const RULES: Rule[] = [
  {
    room: "api",
    forbidden: ["src/controller", ...STAND_INS],
    why: "the API stands on src/kube; what both servers need belongs there; it reads real nodes only",
  },
  {
    room: "controller",
    forbidden: ["src/api", ...STAND_INS],
    why: "the controller never calls into the API server's code, and reads every node the same way (no simulator inside)",
  },
  {
    room: "kube",
    forbidden: ["src/controller", "src/api", "src/node", "src/dev", "src/cli", ...STAND_INS],
    why: "the Kubernetes layer knows Kubernetes only",
  },
  {
    room: "node",
    forbidden: ["src/kube", "src/controller", "src/api", "src/dev", "@kubernetes/client-node"],
    why: "src/node is Livepeer without Kubernetes",
  },
  {
    room: "node",
    forbidden: STAND_INS,
    why: "src/node is production Livepeer knowledge; the stand-ins stand on it, not the other way (its tests may use them)",
    productionOnly: true,
  },
  {
    room: "schema",
    forbidden: ["src/kube", "src/controller", "src/api", "src/dev", "@kubernetes/client-node", ...STAND_INS],
    why: "the schema describes resources and the API; it stands on src/node's Livepeer facts only",
  },
];

describe("imports run one way between the rooms", () => {
  it("reads static, dynamic and re-export imports", () => {
    const source = [
      'import { a } from "../controller/x.ts";',
      "import type {\n  B,\n} from '../kube/index.ts';",
      'export { c } from "./c.ts";',
      'const m = await import("@kubernetes/client-node");',
      'import "./side-effect.ts";',
    ].join("\n");
    expect(importsOf(source).sort()).toEqual(
      [
        "../controller/x.ts",
        "../kube/index.ts",
        "./c.ts",
        "@kubernetes/client-node",
        "./side-effect.ts",
      ].sort(),
    );
  });

  it.each(RULES.map((r) => [`${r.room}${r.productionOnly ? " (production files)" : ""}`, r] as const))(
    "src/%s imports none of its forbidden rooms",
    (_, rule) => {
      const broken: string[] = [];
      for (const file of filesUnder(rule.room)) {
        if (rule.productionOnly && file.endsWith(".test.ts")) continue;
        for (const spec of importsOf(readFileSync(file, "utf8"))) {
          if (rule.forbidden.includes(target(file, spec)))
            broken.push(`${path.relative(src, file)} imports ${spec}`);
        }
      }
      expect(broken, `${rule.why}:\n${broken.join("\n")}`).toEqual([]);
    },
  );
});

describe("every node is read the same way", () => {
  // Whether an answer says it is simulated feeds the Simulated condition and nothing else: no
  // production code of the controller or the API branches on it. Setting it (the reading) and
  // showing it (the status fingerprint) are the only other places allowed.
  const ALLOWED: Record<string, string> = {
    "controller/doctor/verdicts.ts": "simulatedPods: the Simulated condition",
    "controller/doctor/doctor.ts": "the fingerprint of what the status shows",
    "controller/doctor/node-reading.ts": "the reading takes the marker from the node's answers",
    "controller/node-status/pods.ts": "simulatedVerdict: the Simulated condition (the pod annotation)",
  };

  it("reads `simulated` only where the Simulated condition is computed", () => {
    const found: string[] = [];
    for (const room of ["controller", "api"]) {
      for (const file of filesUnder(room)) {
        if (file.endsWith(".test.ts")) continue;
        const rel = path.relative(src, file);
        const source = readFileSync(file, "utf8")
          .replace(/\/\*[\s\S]*?\*\//g, "")
          .replace(/\/\/.*$/gm, "");
        // Reads of a `.simulated` field or the annotation, not assignments to it.
        const reads = [
          ...source.matchAll(/\.simulated\b(?!\s*(?:=[^=]|\|\|=))/g),
          ...source.matchAll(/SIMULATED_ANNOTATION|livepeer\.org\/simulated/g),
        ];
        if (reads.length && !ALLOWED[rel]) found.push(`${rel}: ${reads.map((m) => m[0]).join(", ")}`);
      }
    }
    expect(
      found,
      `only the Simulated condition may test a reading for being simulated:\n${found.join("\n")}`,
    ).toEqual([]);
  });

  it("the check sees a read and ignores an assignment", () => {
    const re = /\.simulated\b(?!\s*(?:=[^=]|\|\|=))/g;
    expect("if (reading.simulated) x();".match(re)).toHaveLength(1);
    expect("reading.simulated = true; r.simulated ||= y;".match(re)).toBeNull();
    expect("a.simulated === true".match(re)).toHaveLength(1);
  });
});
