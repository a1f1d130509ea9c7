/**
 * The exit codes every command uses (docs/commands.md "Exit codes and messages"); scripts and supervisors branch on them,
 * so a code keeps its meaning across releases.
 */
export const EXIT = {
  ok: 0,
  /** The work ran and something failed: a business, a reconciliation difference, a replay that still fails. */
  failed: 1,
  /** The config file or the command line is wrong; nothing was started. */
  config: 2,
  /** A service could not be reached or refused us: Postgres, Redis, upstream, the webhook receiver. */
  unreachable: 3,
  /** The local file system said no: a path whose parent is a file, permissions, a full disk. */
  filesystem: 4,
  /** Another process syncs the same business × stream into the same sink (without `--wait`). */
  locked: 5,
  /** Stopped by SIGINT or SIGTERM; what was stored is kept, and a rerun resumes. */
  signal: 130,
} as const;

export type ExitCode = (typeof EXIT)[keyof typeof EXIT];

/**
 * A failure a person can fix, said in one or two lines: what happened (naming the config key and
 * its target, without secrets) and the fix. The CLI prints `message` and exits with `exitCode`;
 * the stack is shown only with `--verbose` or `LOG_LEVEL=debug`.
 */
export class OperatorError extends Error {
  override readonly name = 'OperatorError';
  readonly exitCode: ExitCode;

  constructor(message: string, exitCode: ExitCode, options?: { cause?: unknown }) {
    super(message, options);
    this.exitCode = exitCode;
  }
}
