import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { describe, expect, it } from 'vitest';
import { jobSignal } from './job-signal.js';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

function heapAfterGc(): number {
  gc();
  gc();
  return process.memoryUsage().heapUsed;
}

/** One job as the processor runs it: code down the stack listens on its signal and may never stop listening. */
async function job(shutdown: AbortSignal, cancel: AbortSignal): Promise<void> {
  const linked = jobSignal([shutdown, cancel]);
  try {
    const held = new Array<number>(256).fill(1);
    linked.signal.addEventListener('abort', () => held.length);
    await new Promise((resolve) => setImmediate(resolve));
  } finally {
    linked.dispose();
  }
}

describe('jobSignal', () => {
  it('follows the process shutdown, the job cancel and its own abort', () => {
    const shutdown = new AbortController();
    const cancel = new AbortController();
    const a = jobSignal([shutdown.signal, cancel.signal]);
    const b = jobSignal([shutdown.signal, cancel.signal]);
    const c = jobSignal([shutdown.signal, undefined]);
    cancel.abort(new Error('cancelled'));
    expect((a.signal.reason as Error).message).toBe('cancelled');
    c.abort(new Error('lock lost'));
    expect((c.signal.reason as Error).message).toBe('lock lost');
    shutdown.abort(new Error('shutting down'));
    expect((b.signal.reason as Error).message).toBe('cancelled');
    expect(jobSignal([shutdown.signal]).signal.aborted).toBe(true);
  });

  it('stops following once disposed', () => {
    const shutdown = new AbortController();
    const linked = jobSignal([shutdown.signal]);
    linked.dispose();
    linked.dispose();
    shutdown.abort(new Error('later'));
    expect(linked.signal.aborted).toBe(false);
  });

  it('20,000 jobs under one process-lifetime shutdown signal leave the heap flat after GC', async () => {
    const shutdown = new AbortController();
    for (let i = 0; i < 2_000; i += 1) await job(shutdown.signal, new AbortController().signal);
    const before = heapAfterGc();
    for (let i = 0; i < 20_000; i += 1) await job(shutdown.signal, new AbortController().signal);
    const grown = heapAfterGc() - before;
    // Each job leaves a ~2 KB listener on its signal; kept alive by the shutdown signal that is
    // over 40 MB (AbortSignal.any). Flat: under 100 bytes a job, whatever else the worker does.
    expect(grown).toBeLessThan(2_000_000);
  }, 60_000);
});
