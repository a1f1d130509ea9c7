import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { setTimeout as delay } from 'node:timers/promises';
import { inject } from 'vitest';
import './cli-build.js';

export interface CliProcess {
  readonly child: ChildProcess;
  /** Standard error so far (pino JSON lines when not on a terminal). */
  stderr(): string;
  stdout(): string;
  /** Resolves with the exit code (null when killed by a signal) and the signal. */
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/** `node` and its arguments for `callsync <args>`, from the run's compiled CLI (see cli-build.ts). */
export function cliCommand(args: readonly string[]): [string, string[]] {
  return [process.execPath, [inject('callsyncMain'), ...args]];
}

/** Runs `callsync <args>` as a real process, the way users and containers run it. */
export function spawnCli(args: readonly string[], env: NodeJS.ProcessEnv = {}): CliProcess {
  const child = spawn(...cliCommand(args), {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  let stdout = '';
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  child.stdout?.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  const exited = once(child, 'exit').then(([code, signal]) => ({
    code: code as number | null,
    signal: signal as NodeJS.Signals | null,
  }));
  return { child, stderr: () => stderr, stdout: () => stdout, exited };
}

/** Runs the CLI to its end. */
export async function runCli(args: readonly string[], env: NodeJS.ProcessEnv = {}) {
  const cli = spawnCli(args, env);
  const { code } = await cli.exited;
  return { code, stdout: cli.stdout(), stderr: cli.stderr() };
}

/** Counts log lines with this message. */
export function countLogLines(text: string, message: string): number {
  return text.split('\n').filter((line) => line.includes(`"msg":"${message}"`)).length;
}

/**
 * `callsync backfill --config <configPath>` killed with SIGKILL once it has stored `pages` pages,
 * in the middle of its work (the exactness tests' crash). Throws when it ended before it could be
 * killed or did not die of the signal; returns the killed process for its output. `options.args`
 * are added to the command line; `options.after` counts another log line than `page stored`
 * (`recording archived`: a kill in the middle of the archive).
 */
export async function killBackfillAfterPages(
  configPath: string,
  pages: number,
  options: { readonly args?: readonly string[]; readonly after?: string } = {},
): Promise<CliProcess> {
  const killed = spawnCli(['backfill', '--config', configPath, '--no-progress', ...(options.args ?? [])]);
  const after = options.after ?? 'page stored';
  while (countLogLines(killed.stderr(), after) < pages && killed.child.exitCode === null) await delay(5);
  if (killed.child.exitCode !== null) throw new Error(`the backfill ended before it could be killed:\n${killed.stderr()}`);
  killed.child.kill('SIGKILL');
  const { signal } = await killed.exited;
  if (signal !== 'SIGKILL') throw new Error(`the backfill ended by ${String(signal)}, not SIGKILL:\n${killed.stderr()}`);
  return killed;
}
