// A flag the node would refuse. The exit code is the one the real node uses: Go's flag package
// exits 2 on a bad command line (0 for -help); a bad environment variable or config file line
// reaches glog.Exit ("Error parsing config"), which exits 1.
export type FlagOrigin = "command line" | "environment" | "config file";

export class FlagParseError extends Error {
  readonly origin: FlagOrigin;
  readonly exitCode: number;
  constructor(origin: FlagOrigin, message: string, exitCode = origin === "command line" ? 2 : 1) {
    super(message);
    this.name = "FlagParseError";
    this.origin = origin;
    this.exitCode = exitCode;
  }
}
