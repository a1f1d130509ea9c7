import { setTimeout as delay } from 'node:timers/promises';

/** Waits `ms`; rejects with the signal's reason when aborted. */
export type Sleep = (ms: number, signal?: AbortSignal) => Promise<void>;

export const abortableSleep: Sleep = async (ms, signal) => {
  await delay(Math.max(0, ms), undefined, signal ? { signal } : {});
};
