import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { load } from "js-yaml";
import { describe, expect, it } from "vitest";
import { CRD_EXAMPLE_FILES, changesOf, chartYaml } from "../generate/chart.ts";
import { GatewaySchema, OrchestratorSchema, RemoteSignerSchema, WebhookSchema } from "../schema/index.ts";
import { CUSTOM_RESOURCES } from "../schema/resources.ts";
import { releases } from "./releases.ts";
import { compareSemVer, parseSemVer } from "./semver.ts";
import { appRoot, buildInfo, gitCommit } from "./version.ts";

const root = appRoot();
const pkg = JSON.parse(readFileSync(path.join(root, "package.json"), "utf8")) as { version: string };
const changelog = readFileSync(path.join(root, "CHANGELOG.md"), "utf8");

describe("semantic versions", () => {
  it.each([
    ["0.1.0", "0.2.0-dev", -1],
    ["0.2.0-dev", "0.2.0", -1],
    ["0.2.0-rc.2", "0.2.0-rc.10", -1],
    ["0.2.0-rc.1", "0.2.0-beta", 1],
    ["1.0.0", "0.99.99", 1],
    ["v0.8.3", "0.8.3", 0],
    ["0.8.3+build.5", "0.8.3", 0],
  ])("%s vs %s: %i", (a, b, want) => {
    expect(compareSemVer(parseSemVer(a)!, parseSemVer(b)!)).toBe(want);
  });

  it("refuses what is not a version", () => {
    for (const text of ["latest", "0.8", "01.2.3", "master-abc123", ""])
      expect(parseSemVer(text)).toBeUndefined();
  });
});

describe("releases", () => {
  it("the project's version is a semantic version newer than every release", () => {
    const own = parseSemVer(pkg.version);
    expect(own, `package.json version ${pkg.version}`).toBeDefined();
    for (const r of releases(root)) expect(compareSemVer(own!, parseSemVer(r.version)!)).toBe(1);
  });

  it("releases.json names the first release, 0.1.0, cut from a6eb370", () => {
    expect(releases(root).at(-1)).toEqual({
      version: "0.1.0",
      commit: "a6eb370de37ff9f7ee099468e6d86293f88caa48",
      date: "2026-11-27",
    });
  });

  it("every release's commit is in this repository's history, and CHANGELOG.md has its section", () => {
    for (const r of releases(root)) {
      expect(r.commit).toMatch(/^[0-9a-f]{40}$/);
      // Throws when the commit is not an ancestor of HEAD.
      execFileSync("git", ["-C", root, "merge-base", "--is-ancestor", r.commit, "HEAD"]);
      expect(changelog).toContain(`## [${r.version}] - ${r.date}`);
    }
    expect(changelog).toContain("## [Unreleased]");
  });
});

describe("the chart's Artifact Hub annotations", () => {
  const chart = load(chartYaml(root)) as {
    version: string;
    appVersion: string;
    annotations: Record<string, string>;
  };

  it("carry the project's version as chart version and appVersion", () => {
    expect(chart.version).toBe(pkg.version);
    expect(chart.appVersion).toBe(pkg.version);
  });

  it("list every CRD with an example the schemas accept", () => {
    const crds = load(chart.annotations["artifacthub.io/crds"]!) as { kind: string; name: string }[];
    expect(crds.map((c) => c.kind)).toEqual(CUSTOM_RESOURCES.map((d) => d.kind));
    const examples = load(chart.annotations["artifacthub.io/crdsExamples"]!) as { kind: string }[];
    expect(examples.map((e) => e.kind)).toEqual(Object.keys(CRD_EXAMPLE_FILES));
    const schemas = {
      Orchestrator: OrchestratorSchema,
      Gateway: GatewaySchema,
      RemoteSigner: RemoteSignerSchema,
      Webhook: WebhookSchema,
    };
    for (const e of examples) schemas[e.kind as keyof typeof schemas].parse(e);
  });

  it("name both images at the appVersion", () => {
    const images = load(chart.annotations["artifacthub.io/images"]!) as { image: string }[];
    expect(images.map((i) => i.image)).toEqual([
      `livepeer-operator:${pkg.version}`,
      `livepeer-node-simulator:${pkg.version}`,
    ]);
  });

  it("take the changes from this version's CHANGELOG section", () => {
    const sample = [
      "## [Unreleased]",
      "### Added",
      "- **One** `thing`,",
      "  on two lines.",
      "### Fixed",
      "- A bug.",
      "## [0.1.0] - 2026-11-27",
      "### Added",
      "- Old.",
    ].join("\n");
    expect(changesOf(sample, "0.2.0-dev")).toEqual([
      { kind: "added", description: "One thing, on two lines." },
      { kind: "fixed", description: "A bug." },
    ]);
    expect(changesOf(sample, "0.1.0")).toEqual([{ kind: "added", description: "Old." }]);
    expect(() => changesOf(sample, "0.3.0")).toThrow("## [0.3.0]");
    const changes = load(chart.annotations["artifacthub.io/changes"]!) as unknown[];
    expect(changes.length).toBeGreaterThan(0);
  });
});

describe("livepeer-operator version", () => {
  it("in a checkout prints package.json's version and git's HEAD", () => {
    const out = execFileSync(process.execPath, [path.join(root, "src/cli/main.ts"), "version", "--json"], {
      encoding: "utf8",
    });
    const head = execFileSync("git", ["-C", root, "rev-parse", "HEAD"], { encoding: "utf8" }).trim();
    const got = JSON.parse(out) as { version: string; commit: string };
    expect(got.version).toBe(pkg.version);
    expect(got.commit.replace(/-dirty$/, "")).toBe(head);
    expect(got.commit).toBe(gitCommit(root));
  });

  it("in an image (no .git) reads the commit the build recorded in build-info.json", () => {
    const dir = mkdtempSync(path.join(tmpdir(), "build-info-"));
    try {
      writeFileSync(path.join(dir, "package.json"), JSON.stringify({ version: "9.9.9" }));
      expect(buildInfo(dir)).toEqual({ version: "9.9.9", commit: "unknown" });
      writeFileSync(
        path.join(dir, "build-info.json"),
        JSON.stringify({ version: "9.9.9", commit: "abc1234" }),
      );
      expect(buildInfo(dir)).toEqual({ version: "9.9.9", commit: "abc1234" });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
