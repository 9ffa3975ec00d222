// releases.json: every released version and the commit it was cut from, newest first. Tests
// build a previous release from its commit (chart and images); CHANGELOG.md says what each holds.
import { readFileSync } from "node:fs";
import path from "node:path";
import { appRoot } from "./version.ts";

export interface Release {
  version: string;
  /** Full commit hash. */
  commit: string;
  /** YYYY-MM-DD. */
  date: string;
}

export const RELEASES_FILE = "releases.json";

export function releases(root = appRoot()): Release[] {
  const text = readFileSync(path.join(root, RELEASES_FILE), "utf8");
  return (JSON.parse(text) as { releases: Release[] }).releases;
}

/** The newest release: what an upgrade test starts from. */
export function latestRelease(root = appRoot()): Release {
  const [latest] = releases(root);
  if (!latest) throw new Error(`${path.join(root, RELEASES_FILE)} lists no release`);
  return latest;
}
