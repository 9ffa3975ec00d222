// Which go-livepeer a node image runs, and whether that release has the flags the operator
// renders (pure). The node exits on a flag it does not know, so a flag newer than the image is
// refused before the pod is rolled, naming the flag, the release and the fix; a release outside
// the range the operator is built and tested against gets a condition (NodeVersionSupported).
import { compareSemVer, formatSemVer, parseSemVer, type SemVer } from "../../release/semver.ts";
import type { FlagName, FlagValues } from "./flag-table.ts";
import { isFlagName } from "./flag-table.ts";
import { FLAG_SINCE } from "./flag-versions-data.ts";
import { type FlagProblem, problem } from "./problem.ts";

export { FLAG_SINCE } from "./flag-versions-data.ts";

/**
 * The go-livepeer releases the operator knows: the flag table is complete for 0.9.1, and the
 * node doctor's log lines, the endpoints it reads and the AI flags it renders are those of 0.8.x
 * and 0.9.x (0.8.0 brought -aiWorker, -aiModels and -maxPricePerCapability).
 */
export const SUPPORTED_NODE_VERSIONS = { oldest: "0.8.0", newest: "0.9.1" } as const;

/** An image known to be go-livepeer for its repository name (livepeer/go-livepeer, <registry>/.../go-livepeer). */
export function isGoLivepeerImage(image: string): boolean {
  const repository = image.split("@")[0]!.replace(/:[^/]*$/, "");
  return /(^|\/)go-livepeer$/.test(repository);
}

/**
 * The go-livepeer release an image's tag names ("livepeer/go-livepeer:0.8.3" -> 0.8.3);
 * undefined for latest, a branch, a digest, or a branch build such as 0.7.7-ai.2 (the AI branch
 * had flags its release number's main line got later: its flags cannot be told from the number).
 */
export function nodeVersionOf(image: string): SemVer | undefined {
  if (!isGoLivepeerImage(image)) return undefined;
  const m = /:([^/:@]+)(@.*)?$/.exec(image);
  const version = m ? parseSemVer(m[1]!) : undefined;
  return version && version.prerelease.length === 0 ? version : undefined;
}

/** The release a flag first appeared in. */
export function flagSince(name: FlagName): SemVer {
  return parseSemVer(FLAG_SINCE[name])!;
}

/** Flag names on a command line ("-v=6", "--monitor", "-maxSessions 4" -> v, monitor, maxSessions). */
export function flagNamesInArgs(args: readonly string[]): string[] {
  return args.flatMap((a) => /^--?([A-Za-z][A-Za-z0-9_]*)(=|$)/.exec(a)?.[1] ?? []);
}

/**
 * One error per flag the node would be given - the config file's, the command line's (`-config`
 * and spec.extraArgs) - that the image's release does not have. [] for images whose release is
 * not known. (LP_* variables of a flag the node lacks are ignored by it, not fatal.)
 */
export function flagsMissingInRelease(
  values: FlagValues,
  image: string,
  args: readonly string[] = [],
): FlagProblem[] {
  const version = nodeVersionOf(image);
  if (!version) return [];
  const names = [
    "config",
    ...Object.keys(values).filter((n) => values[n] !== undefined),
    ...flagNamesInArgs(args),
  ];
  const missing = [...new Set(names)].filter(
    (n): n is FlagName => isFlagName(n) && compareSemVer(flagSince(n), version) > 0,
  );
  const release = formatSemVer(version);
  return missing.map((n) =>
    problem(
      n,
      "error",
      `-${n} does not exist in go-livepeer ${release} (image ${image}): the node would exit on the unknown flag; it was added in ${FLAG_SINCE[n]}`,
      `set spec.image to go-livepeer ${FLAG_SINCE[n]} or later, for example livepeer/go-livepeer:${SUPPORTED_NODE_VERSIONS.newest}, or remove the setting that renders -${n}`,
    ),
  );
}

export interface NodeVersionVerdict {
  status: "True" | "False" | "Unknown";
  reason: string;
  message: string;
}

/** NodeVersionSupported: whether the image's go-livepeer release is one the operator knows. */
export function nodeVersionSupport(image: string): NodeVersionVerdict {
  const { oldest, newest } = SUPPORTED_NODE_VERSIONS;
  const range = `${oldest} to ${newest}`;
  if (!isGoLivepeerImage(image)) {
    return {
      status: "Unknown",
      reason: "NotGoLivepeer",
      message: `image ${image} is not go-livepeer (its repository is not .../go-livepeer): its release is not checked`,
    };
  }
  const version = nodeVersionOf(image);
  if (!version) {
    return {
      status: "Unknown",
      reason: "VersionNotInTag",
      message: `image ${image} names no release in its tag: flags cannot be checked against it; use a release tag, for example livepeer/go-livepeer:${newest} (supported: ${range})`,
    };
  }
  const release = formatSemVer(version);
  if (compareSemVer(version, parseSemVer(oldest)!) < 0) {
    return {
      status: "False",
      reason: "NodeVersionTooOld",
      message: `go-livepeer ${release} is older than the oldest release this operator supports (${range}): upgrade spec.image, for example to livepeer/go-livepeer:${newest}`,
    };
  }
  if (compareSemVer(version, parseSemVer(newest)!) > 0) {
    return {
      status: "False",
      reason: "NodeVersionNewer",
      message: `go-livepeer ${release} is newer than the newest release this operator knows (${range}): it may run, but flags, log lines and endpoints are unchecked; upgrade the operator or pin spec.image to livepeer/go-livepeer:${newest}`,
    };
  }
  return { status: "True", reason: "Supported", message: `go-livepeer ${release} (supported: ${range})` };
}
