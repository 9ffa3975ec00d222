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
}

const RULES: Rule[] = [
  {
    room: "api",
    forbidden: ["src/controller"],
    why: "the API stands on src/kube; what both servers need belongs there",
  },
  {
    room: "controller",
    forbidden: ["src/api"],
    why: "the controller never calls into the API server's code",
  },
  {
    room: "kube",
    forbidden: ["src/controller", "src/api", "src/node", "src/dev", "src/cli"],
    why: "the Kubernetes layer knows Kubernetes only",
  },
  {
    room: "node",
    forbidden: ["src/kube", "src/controller", "src/api", "src/dev", "@kubernetes/client-node"],
    why: "src/node is Livepeer without Kubernetes",
  },
  {
    room: "schema",
    forbidden: ["src/kube", "src/controller", "src/api", "src/dev", "@kubernetes/client-node"],
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

  it.each(RULES.map((r) => [r.room, r] as const))("src/%s imports none of its forbidden rooms", (_, rule) => {
    const broken: string[] = [];
    for (const file of filesUnder(rule.room)) {
      for (const spec of importsOf(readFileSync(file, "utf8"))) {
        if (rule.forbidden.includes(target(file, spec)))
          broken.push(`${path.relative(src, file)} imports ${spec}`);
      }
    }
    expect(broken, `${rule.why}:\n${broken.join("\n")}`).toEqual([]);
  });
});
