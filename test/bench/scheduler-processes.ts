import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import type { UpstreamInfo } from '../support/bench-config.js';
import { firstLine, REPO_ROOT, stopChild } from '../support/child-process.js';
import type { SchedulerSimCounters } from './scheduler-sim-child.js';

/**
 * A bench that crashes past its `finally` (an uncaught error) must not leave a worker polling a
 * thousand businesses for hours, loading every later measurement: the child dies with the bench.
 */
function killedWithBench(child: ChildProcess): void {
  const kill = (): void => void child.kill('SIGKILL');
  process.once('exit', kill);
  child.once('exit', () => process.removeListener('exit', kill));
}

/** Figure 6's simulator child: its endpoint, and its counters on request. */
export interface SchedulerSim extends UpstreamInfo {
  counters(): Promise<SchedulerSimCounters>;
  reset(): Promise<void>;
  close(): Promise<void>;
}

export async function startSchedulerSim(businesses: number): Promise<SchedulerSim> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'test/bench/scheduler-sim-child.ts', String(businesses)], {
    cwd: REPO_ROOT,
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  if (child.stdout === null || child.stdin === null) throw new Error('simulator child has no pipes');
  killedWithBench(child);
  const stdin = child.stdin;
  let info: UpstreamInfo;
  try {
    info = JSON.parse(await firstLine(child, 180_000)) as UpstreamInfo;
  } catch (error) {
    await stopChild(child);
    throw error;
  }
  const replies = createInterface({ input: child.stdout })[Symbol.asyncIterator]();
  // One question at a time: each is answered by the next line.
  let queue = Promise.resolve();
  const ask = <T>(question: string): Promise<T> => {
    const answer = queue.then(async () => {
      stdin.write(`${question}\n`);
      const next = await replies.next();
      if (next.done === true) throw new Error('the simulator child exited');
      return JSON.parse(next.value) as T;
    });
    queue = answer.then(
      () => undefined,
      () => undefined,
    );
    return answer;
  };
  return {
    ...info,
    counters: () => ask<SchedulerSimCounters>('counters'),
    reset: async () => void (await ask('reset')),
    close: async () => {
      stdin.end();
      await stopChild(child);
    },
  };
}

/** One `callsync run` with its log read: runs finished, and the status server's URL. */
export interface RunChild {
  readonly process: ChildProcess;
  /** `sync done` log lines so far: one per sync that reached the end. */
  syncsDone(): number;
  /** The status server's URL, once it is listening. */
  url(): string | undefined;
  /** Milliseconds from spawn until the worker took jobs (schedulers reconciled), once it has. */
  startupMs(): number | undefined;
  stop(): Promise<void>;
}

/**
 * `callsync run` at log level info (the default), its log on stderr counted instead of shown.
 * `main` is a compiled `src/entry/cli/main.js`: the container runs `node dist/src/entry/cli/main.js`, and under
 * `--import tsx` every error's stack goes through source maps and a loader thread runs beside the worker.
 */
export function startRunChild(main: string, configFile: string): RunChild {
  // `--cpu-prof` is refused in NODE_OPTIONS, so the bench passes it on when asked.
  const profileDir = process.env.CALLSYNC_BENCH_CPU_PROF;
  const profile = profileDir === undefined ? [] : ['--cpu-prof', `--cpu-prof-dir=${profileDir}`];
  const child = spawn(process.execPath, [...profile, main, 'run', '--config', configFile], { cwd: REPO_ROOT, stdio: ['ignore', 'ignore', 'pipe'] });
  killedWithBench(child);
  let syncs = 0;
  let url: string | undefined;
  const spawnedAt = Date.now();
  let startupMs: number | undefined;
  if (child.stderr !== null) {
    createInterface({ input: child.stderr }).on('line', (line) => {
      if (line.includes('"msg":"sync done"')) syncs += 1;
      else if (line.includes('"msg":"worker started"')) startupMs = Date.now() - spawnedAt;
      else if (line.includes('"msg":"status server listening"')) url = (JSON.parse(line) as { url?: string }).url;
      else if (line.includes('"level":50') || line.includes('"level":60')) process.stderr.write(`[run] ${line}\n`);
    });
  }
  return { process: child, syncsDone: () => syncs, url: () => url, startupMs: () => startupMs, stop: () => stopChild(child) };
}
