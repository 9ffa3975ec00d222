/** One `livepeer-operator <name>` subcommand. Each lives in its own file under ./commands. */
export interface Command {
  name: string;
  /** One line for `livepeer-operator help`. */
  summary: string;
  /** Full usage text, shown by `livepeer-operator <name> --help`. */
  usage: string;
  /** Returns the process exit code. */
  run(args: string[]): Promise<number>;
}

/** A user error: printed without a stack trace, exit code 2 unless given. */
export class UsageError extends Error {
  readonly exitCode: number;
  constructor(message: string, exitCode = 2) {
    super(message);
    this.name = "UsageError";
    this.exitCode = exitCode;
  }
}
