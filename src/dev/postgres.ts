// A throwaway PostgreSQL server for tests, benchmarks and the embedded default: Debian's package
// (installed on first use when we are root, like the real node's containerd), a fresh cluster
// made by initdb in a temp dir, listening on a free loopback port, run as the package's
// `postgres` user (the server refuses to run as root). Stopped by pid and removed on stop(); a
// watchdog does the same when the parent dies abruptly.
import { spawn, spawnSync } from "node:child_process";
import { chownSync, existsSync, mkdtempSync, openSync, readdirSync, readFileSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import pg from "pg";
import { isAlive, sleep, stopPid } from "../process/pids.ts";
import { freePort } from "../process/ports.ts";
import { startReaper } from "./cluster/reaper.ts";
import { aptInstall, installCommand } from "./debian/packages.ts";

export interface Postgres {
  /** postgres://postgres@127.0.0.1:<port>/postgres (trust authentication, loopback only). */
  connectionString: string;
  port: number;
  pid: number;
  dir: string;
  /** A new empty database; returns its connection string. */
  createDatabase(name: string): Promise<string>;
  stop(): Promise<void>;
}

export interface StartPostgresOptions {
  progress?: (line: string) => void;
  /** fsync on commit (default true: figures measured against it are honest). */
  fsync?: boolean;
}

const PACKAGE = "postgresql";

/** The bin directory of the newest installed server, e.g. /usr/lib/postgresql/15/bin. */
export function serverBinDir(root = "/usr/lib/postgresql"): string | undefined {
  if (!existsSync(root)) return undefined;
  const versions = readdirSync(root)
    .filter((v) => /^\d+$/.test(v) && existsSync(path.join(root, v, "bin", "postgres")))
    .sort((a, b) => Number(b) - Number(a));
  return versions[0] ? path.join(root, versions[0], "bin") : undefined;
}

async function ensureInstalled(progress: (line: string) => void): Promise<string> {
  const found = serverBinDir();
  if (found) return found;
  if (process.getuid?.() !== 0) {
    throw new Error(
      `PostgreSQL is not installed; install Debian's package as root:\n  sudo ${installCommand([PACKAGE]).join(" ")}`,
    );
  }
  await aptInstall([PACKAGE], (line) => progress(`[postgres] ${line}`));
  const bin = serverBinDir();
  if (!bin) {
    throw new Error(
      `${PACKAGE} is installed but no server is in /usr/lib/postgresql/<version>/bin; reinstall it:\n  ${installCommand([PACKAGE]).join(" ")} --reinstall`,
    );
  }
  return bin;
}

/** uid/gid to run the server as: the package's `postgres` user when we are root, else ourselves. */
function serverUser(): { uid: number; gid: number } | undefined {
  if (process.getuid?.() !== 0) return undefined;
  const line = readFileSync("/etc/passwd", "utf8")
    .split("\n")
    .find((l) => l.startsWith("postgres:"));
  const [, , uid, gid] = line?.split(":") ?? [];
  if (!uid || !gid) {
    throw new Error(
      "PostgreSQL refuses to run as root and there is no 'postgres' user; reinstall the package (it creates the user):\n  apt-get install --reinstall postgresql-common",
    );
  }
  return { uid: Number(uid), gid: Number(gid) };
}

function tail(file: string, lines = 20): string {
  try {
    return readFileSync(file, "utf8").trimEnd().split("\n").slice(-lines).join("\n");
  } catch {
    return "(no log)";
  }
}

export async function startPostgres(opts: StartPostgresOptions = {}): Promise<Postgres> {
  const progress = opts.progress ?? (() => {});
  const bin = await ensureInstalled(progress);
  const user = serverUser();
  const dir = mkdtempSync(path.join(os.tmpdir(), "livepeer-pg-"));
  const reaper = startReaper(dir, true);
  const data = path.join(dir, "data");
  const logFile = path.join(dir, "postgres.log");
  let pid: number | undefined;
  const cleanUp = async () => {
    if (pid !== undefined) {
      await stopServer(pid);
      reaper.untrack(pid);
    }
    reaper.release();
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    if (user) chownSync(dir, user.uid, user.gid);
    const init = spawnSync(
      path.join(bin, "initdb"),
      ["-D", data, "-U", "postgres", "-A", "trust", "-E", "UTF8", "--locale=C", "--no-sync"],
      { cwd: dir, encoding: "utf8", timeout: 120_000, ...(user ?? {}) },
    );
    if (init.status !== 0) {
      throw new Error(
        `initdb failed (exit ${init.status}): ${(init.stderr || init.stdout || String(init.error)).slice(-2000)}`,
      );
    }
    const port = await freePort();
    const fd = openSync(logFile, "a");
    if (user) chownSync(logFile, user.uid, user.gid);
    const child = spawn(
      path.join(bin, "postgres"),
      [
        "-D",
        data,
        "-p",
        String(port),
        "-k",
        dir,
        "-c",
        "listen_addresses=127.0.0.1",
        "-c",
        `fsync=${opts.fsync === false ? "off" : "on"}`,
        "-c",
        "max_connections=200",
      ],
      { cwd: dir, stdio: ["ignore", fd, fd], ...(user ?? {}) },
    );
    if (child.pid === undefined) throw new Error(`could not start ${path.join(bin, "postgres")}`);
    pid = child.pid;
    reaper.track(pid);
    const connectionString = `postgres://postgres@127.0.0.1:${port}/postgres`;
    await waitReady(connectionString, pid, logFile);
    progress(`[postgres] ready on 127.0.0.1:${port} (pid ${pid}, data in ${data})`);
    const serverPid = pid;
    return {
      connectionString,
      port,
      pid: serverPid,
      dir,
      async createDatabase(name: string) {
        if (!/^[a-z_][a-z0-9_]{0,62}$/.test(name)) {
          throw new Error(`database name ${JSON.stringify(name)} must be lower-case letters, digits and _`);
        }
        const c = new pg.Client({ connectionString });
        await c.connect();
        try {
          await c.query(`CREATE DATABASE ${name}`);
        } finally {
          await c.end();
        }
        return `postgres://postgres@127.0.0.1:${port}/${name}`;
      },
      stop: cleanUp,
    };
  } catch (err) {
    const why = err instanceof Error ? err.message : String(err);
    const log = tail(logFile);
    await cleanUp();
    throw new Error(`PostgreSQL could not start: ${why}\n--- postgres.log ---\n${log}`);
  }
}

async function waitReady(connectionString: string, pid: number, logFile: string): Promise<void> {
  const deadline = Date.now() + 30_000;
  let last = "";
  while (Date.now() < deadline) {
    if (!isAlive(pid)) throw new Error(`the server exited during startup:\n${tail(logFile)}`);
    const c = new pg.Client({ connectionString, connectionTimeoutMillis: 1_000 });
    try {
      await c.connect();
      await c.query("SELECT 1");
      return;
    } catch (err) {
      last = (err as Error).message;
    } finally {
      await c.end().catch(() => {});
    }
    await sleep(100);
  }
  throw new Error(`not accepting connections after 30 s (last error: ${last})`);
}

/** SIGINT is PostgreSQL's fast shutdown (clients are disconnected); SIGKILL if it lingers. */
async function stopServer(pid: number): Promise<void> {
  if (!isAlive(pid)) return;
  try {
    process.kill(pid, "SIGINT");
  } catch {
    return;
  }
  const deadline = Date.now() + 10_000;
  while (isAlive(pid) && Date.now() < deadline) await sleep(50);
  await stopPid(pid, 1_000);
}
