import { pino } from 'pino';
import type { Dispatcher } from 'undici';
import { HubSpotBudget, type Clock } from '../../connectors/hubspot/budget.js';
import { HubSpotHttp, type HubSpotHttpOptions } from '../../connectors/hubspot/client.js';

/** The portal the unit tests' MockAgent answers for. */
export const ORIGIN = 'https://api.hubapi.com';

/** A clock that moves only when slept on; `slept` lists every wait, in order. */
export function fakeClock(): Clock & { slept: number[] } {
  let now = 1_700_000_000_000;
  const slept: number[] = [];
  return { slept, now: () => now, sleep: (ms) => ((now += ms), slept.push(ms), Promise.resolve()) };
}

/**
 * The HubSpot client as the unit tests drive it: {@link ORIGIN} through `dispatcher` (a
 * MockAgent), a budget no test reaches on `clock`, no jitter, no log; the test names its retry
 * policy and anything else it varies.
 */
export function mockedHubSpotHttp(dispatcher: Dispatcher, clock: Clock, options: Pick<HubSpotHttpOptions, 'retry'> & Partial<HubSpotHttpOptions>): HubSpotHttp {
  return new HubSpotHttp({
    baseUrl: ORIGIN,
    token: 'pat-na1-unit',
    dispatcher,
    budget: new HubSpotBudget({ requestsPer10s: 100, searchPerSecond: 5 }, clock),
    logger: pino({ level: 'silent' }),
    clock,
    random: () => 0,
    ...options,
  });
}
