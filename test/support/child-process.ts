import { spawn, type ChildProcess, type StdioOptions } from 'node:child_process';
import { once } from 'node:events';
import { resolve } from 'node:path';
import { createInterface } from 'node:readline';

/** The checkout root: children run `src/entry/cli/main.ts` and bench scripts relative to it. */
export const REPO_ROOT = resolve(import.meta.dirname, '../..');

/** `node --import tsx <script> ...args` from the checkout root; by default stderr is passed through for crashes. */
export function spawnTsx(
  script: string,
  args: readonly string[],
  env: NodeJS.ProcessEnv = process.env,
  stdio: StdioOptions = ['ignore', 'pipe', 'inherit'],
): ChildProcess {
  return spawn(process.execPath, ['--import', 'tsx', script, ...args], { cwd: REPO_ROOT, env, stdio });
}

/**
 * The V8 flags callsync ships with: the `callsync` bin's shebang and the image's `CMD` carry them
 * (test/unit/shipped-node-flags.test.ts keeps the three in step). Under V8's default old-space limit
 * the old generation grows to about four times what survived the last full collection before it is
 * collected again, so the records a flush held, all promoted by then, pile up as garbage; a 1 GB limit
 * lowers that growth factor.
 */
export const SHIPPED_NODE_FLAGS = ['--max-old-space-size=1024'] as const;

/** `node <script> ...args` from the checkout root, for a script already compiled to JavaScript, with the flags callsync ships with. */
export function spawnNode(script: string, args: readonly string[]): ChildProcess {
  return spawn(process.execPath, [...SHIPPED_NODE_FLAGS, script, ...args], { cwd: REPO_ROOT, stdio: ['ignore', 'pipe', 'inherit'] });
}

/** Resolves with the child's first stdout line; rejects if it exits first or stays silent past `timeoutMs`. */
export async function firstLine(child: ChildProcess, timeoutMs: number): Promise<string> {
  if (child.stdout === null) throw new Error('child has no stdout pipe');
  const lines = createInterface({ input: child.stdout });
  const timer = AbortSignal.timeout(timeoutMs);
  const line = Promise.race([
    once(lines, 'line', { signal: timer }).then(([text]) => String(text)),
    once(child, 'exit', { signal: timer }).then(([code]) => {
      throw new Error(`child exited with ${String(code)} before printing a line`);
    }),
  ]);
  try {
    return await line;
  } finally {
    lines.close();
  }
}

/** Stops a child this bench started (by its own handle, never by name) and waits for it to exit. */
export async function stopChild(child: ChildProcess, signal: NodeJS.Signals = 'SIGTERM'): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = once(child, 'exit');
  child.kill(signal);
  const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
  await exited;
  clearTimeout(timer);
}
