import { setTimeout as delay } from 'node:timers/promises';

/** Waits `ms`; rejects with the signal's reason when aborted. */
export type Sleep = (ms: number, signal?: AbortSignal) => Promise<void>;

// Node fires a longer timer after 1 ms (TimeoutOverflowWarning): a huge wait would become a busy loop.
const MAX_TIMER_MS = 2 ** 31 - 1;

/** The one sleep of the HTTP clients: abortable, and never shorter than asked for a huge `ms`. */
export const abortableSleep: Sleep = async (ms, signal) => {
  let left = Math.max(0, ms);
  do {
    const step = Math.min(left, MAX_TIMER_MS);
    await delay(step, undefined, signal ? { signal } : {});
    left -= step;
  } while (left > 0);
};
