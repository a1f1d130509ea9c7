import type { BusinessData } from './business.js';

const TICK_MS = 100;

/** Live arrivals: every tick, each business gets its share of new calls and voicemails. */
export function startArrivals(
  businesses: readonly BusinessData[],
  rates: { callsPerSecond?: number; voicemailsPerSecond?: number } | undefined,
  clock: () => number,
  onArrival?: (business: string, calls: number, voicemails: number) => void,
): () => void {
  const calls = rates?.callsPerSecond ?? 0;
  const voicemails = rates?.voicemailsPerSecond ?? 0;
  if (calls <= 0 && voicemails <= 0) return () => undefined;
  // Fractional rates accumulate so 0.5/s still yields one call every two seconds.
  let callDebt = 0;
  let voicemailDebt = 0;
  const timer = setInterval(() => {
    callDebt += (calls * TICK_MS) / 1000;
    voicemailDebt += (voicemails * TICK_MS) / 1000;
    const newCalls = Math.floor(callDebt);
    const newVoicemails = Math.floor(voicemailDebt);
    callDebt -= newCalls;
    voicemailDebt -= newVoicemails;
    const nowSec = Math.floor(clock() / 1000);
    for (const b of businesses) {
      if (newCalls > 0) b.calls.append(newCalls, nowSec);
      if (newVoicemails > 0) b.voicemails.append(newVoicemails, nowSec);
      if (newCalls + newVoicemails > 0) onArrival?.(b.name, newCalls, newVoicemails);
    }
  }, TICK_MS);
  timer.unref();
  return () => clearInterval(timer);
}
