// A previous release's chart and images, built from the commit releases.json records, with THAT
// commit's own build code: a detached git worktree of the commit in the cache (keyed by commit),
// its dependencies from its own lockfile (`npm ci --prefer-offline`), and its `src/dev/image/
// build.ts` run as a child process there. Images are tagged `<version>-<short commit>` so they
// cannot be confused with the working tree's (`<package.json version>`). A marker file written
// last makes a second run cost a stat; an interrupted run is redone from where git and npm left.
import { execFile } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { latestRelease, type Release } from "../../release/releases.ts";
import { cacheDir } from "../toolchain/binaries.ts";
import { OPERATOR_REPOSITORY, SIMULATOR_REPOSITORY } from "./images.ts";

const PROJECT_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../..");
/** Bump when what the marker promises changes (another layout of the cache entry). */
const ENTRY_FORMAT = 1;

export interface ReleasePaths {
  /** `<cache>/releases/<commit>`: everything of this release. */
  dir: string;
  /** The git worktree of the commit. */
  source: string;
  /** Its chart, as `helm install` takes it. */
  chart: string;
  /** Where its image archives go. */
  images: string;
  /** Written last: the entry is complete. */
  marker: string;
}

/** Where a release's build lives in the cache, keyed by its full commit. */
export function releasePaths(commit: string, cache = cacheDir()): ReleasePaths {
  if (!/^[0-9a-f]{40}$/.test(commit)) {
    throw new Error(
      `releases.json: commit '${commit}' is not a full 40-hex git commit; write the hash \`git rev-parse <tag>\` prints`,
    );
  }
  const dir = path.join(cache, "releases", commit);
  const source = path.join(dir, "source");
  return {
    dir,
    source,
    chart: path.join(source, "deploy/helm/livepeer-operator"),
    images: path.join(dir, "images"),
    marker: path.join(dir, "built.json"),
  };
}

/** The tag of a release's images: its version and short commit, never a working tree's plain version. */
export function releaseTag(release: Pick<Release, "version" | "commit">): string {
  return `${release.version}-${release.commit.slice(0, 7)}`;
}

export interface ReleaseImage {
  ref: string;
  /** The docker-save archive (`ctr images import`, `docker load`). */
  archive: string;
}

/** The image refs and archives a release's build writes (its build.ts names archives `<repo>_<tag>.tar`). */
export function releaseImages(
  release: Pick<Release, "version" | "commit">,
  imagesDir: string,
): { operator: ReleaseImage; simulator: ReleaseImage } {
  const tag = releaseTag(release);
  const image = (repository: string) => ({
    ref: `${repository}:${tag}`,
    archive: path.join(imagesDir, `${repository}_${tag}.tar`),
  });
  return { operator: image(OPERATOR_REPOSITORY), simulator: image(SIMULATOR_REPOSITORY) };
}

export interface BuiltRelease {
  version: string;
  commit: string;
  chart: string;
  operator: ReleaseImage;
  simulator: ReleaseImage;
  /** Whether this call found it all in the cache. */
  cached: boolean;
  /** Seconds this call spent: git worktree, npm ci, the image build (0 when cached). */
  seconds: { worktree: number; npmCi: number; images: number; total: number };
}

interface Marker {
  format: number;
  commit: string;
  operator: string;
  simulator: string;
}

/** Whether the marker says this entry holds exactly these images, and they are there. */
export function markerValid(
  text: string | undefined,
  commit: string,
  images: ReturnType<typeof releaseImages>,
) {
  if (!text) return false;
  try {
    const m = JSON.parse(text) as Marker;
    return (
      m.format === ENTRY_FORMAT &&
      m.commit === commit &&
      m.operator === images.operator.ref &&
      m.simulator === images.simulator.ref
    );
  } catch {
    return false;
  }
}

const NPM_FLAGS = ["--prefer-offline", "--no-audit", "--no-fund"];

/** npm ci's refusal of a lockfile that does not list everything package.json asks for. */
export function lockfileOutOfSync(message: string): boolean {
  return /can only install packages when your package\.json and package-lock\.json[\s\S]*are in sync/.test(
    message,
  );
}

function run(cmd: string, args: string[], cwd: string, env: NodeJS.ProcessEnv = process.env) {
  return new Promise<string>((resolve, reject) =>
    execFile(
      cmd,
      args,
      { cwd, env, maxBuffer: 64 * 1024 * 1024, timeout: 1_800_000 },
      (err, stdout, stderr) =>
        err
          ? reject(
              new Error(`${cmd} ${args.join(" ")} (in ${cwd}) failed: ${err.message}\n${stdout}${stderr}`),
            )
          : resolve(stdout + stderr),
    ),
  );
}

/** The release's chart and images, built once per commit (see the file's header). */
export async function buildPreviousRelease(
  options: { release?: Release; projectRoot?: string; cache?: string; log?: (line: string) => void } = {},
): Promise<BuiltRelease> {
  const t0 = Date.now();
  const root = options.projectRoot ?? PROJECT_ROOT;
  const release = options.release ?? latestRelease(root);
  const log = options.log ?? ((line: string) => process.stderr.write(`${line}\n`));
  const paths = releasePaths(release.commit, options.cache);
  const images = releaseImages(release, paths.images);
  const done = (cached: boolean, s: Omit<BuiltRelease["seconds"], "total">): BuiltRelease => ({
    version: release.version,
    commit: release.commit,
    chart: paths.chart,
    ...images,
    cached,
    seconds: { ...s, total: (Date.now() - t0) / 1000 },
  });
  const marker = existsSync(paths.marker) ? readFileSync(paths.marker, "utf8") : undefined;
  if (
    markerValid(marker, release.commit, images) &&
    existsSync(images.operator.archive) &&
    existsSync(images.simulator.archive) &&
    existsSync(paths.chart)
  ) {
    return done(true, { worktree: 0, npmCi: 0, images: 0 });
  }
  mkdirSync(paths.dir, { recursive: true });
  const since = (t: number) => (Date.now() - t) / 1000;

  let t = Date.now();
  if (!existsSync(path.join(paths.source, "package.json"))) {
    // A half-made worktree (interrupted run): git forgets it, and it is made again.
    rmSync(paths.source, { recursive: true, force: true });
    await run("git", ["worktree", "prune"], root);
    log(`[release ${release.version}] git worktree add --detach ${paths.source} ${release.commit}`);
    await run("git", ["worktree", "add", "--detach", paths.source, release.commit], root).catch(
      (err: Error) => {
        throw new Error(
          `${err.message}\nthe repository running the tests lacks commit ${release.commit} (releases.json's ${release.version}): a shallow clone? fetch its history with \`git fetch --unshallow\``,
        );
      },
    );
  }
  const worktree = since(t);

  t = Date.now();
  if (!existsSync(path.join(paths.source, "node_modules", ".package-lock.json"))) {
    log(`[release ${release.version}] npm ci --prefer-offline (its own lockfile)`);
    await run("npm", ["ci", ...NPM_FLAGS], paths.source).catch(async (err: Error) => {
      if (!lockfileOutOfSync(err.message)) throw err;
      // 0.1.0's lockfile lacks the optional platform packages of @biomejs/biome that today's npm
      // wants listed; `npm install` keeps every locked version and only fills those in (--no-save:
      // the release's files stay as committed).
      log(
        `[release ${release.version}] its lockfile is out of sync for this npm; npm install --no-save instead`,
      );
      await run("npm", ["install", "--no-save", ...NPM_FLAGS], paths.source);
    });
  }
  const npmCi = since(t);

  t = Date.now();
  log(
    `[release ${release.version}] its own image build: node src/dev/image/build.ts --tag ${releaseTag(release)}`,
  );
  // Its build records the commit it runs in (git HEAD of the worktree: the release's commit).
  const { LIVEPEER_OPERATOR_COMMIT: _, ...env } = process.env;
  await run(
    process.execPath,
    ["src/dev/image/build.ts", "--out", paths.images, "--tag", releaseTag(release)],
    paths.source,
    env,
  );
  for (const image of [images.operator, images.simulator]) {
    if (!existsSync(image.archive)) {
      throw new Error(
        `${release.version}'s image build did not write ${image.archive}: its build code names archives differently; teach releaseImages (src/dev/image/previous-release.ts) its layout`,
      );
    }
  }
  const imagesSeconds = since(t);
  const written: Marker = {
    format: ENTRY_FORMAT,
    commit: release.commit,
    operator: images.operator.ref,
    simulator: images.simulator.ref,
  };
  writeFileSync(paths.marker, `${JSON.stringify(written, null, 2)}\n`);
  return done(false, { worktree, npmCi, images: imagesSeconds });
}

if (process.argv[1] && fileURLToPath(import.meta.url) === path.resolve(process.argv[1])) {
  buildPreviousRelease().then(
    (built) => process.stdout.write(`${JSON.stringify(built, null, 2)}\n`),
    (err: unknown) => {
      process.stderr.write(`${err instanceof Error ? err.message : String(err)}\n`);
      process.exitCode = 1;
    },
  );
}
