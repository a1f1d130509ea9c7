import { mkdtempSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulator, type Simulator } from '../../../simulator/index.js';
import { startFakeHubSpot, type FakeHubSpot } from '../../fakes/hubspot/index.js';
import { backfillOnce, testConfig, total } from '../support/backfill-harness.js';

const BUSINESS = 'biz-1';
/** How people type a US number `n` (10 digits) into a contact. */
const FORMATS: readonly ((n: string) => Record<string, string>)[] = [
  (n) => ({ phone: `(${n.slice(0, 3)}) ${n.slice(3, 6)}-${n.slice(6)}` }),
  (n) => ({ mobilephone: `${n.slice(0, 3)}.${n.slice(3, 6)}.${n.slice(6)}` }),
  (n) => ({ phone: `+1 ${n.slice(0, 3)} ${n.slice(3, 6)} ${n.slice(6)}` }),
  (n) => ({ mobilephone: `1-${n.slice(0, 3)}-${n.slice(3, 6)}-${n.slice(6)}` }),
  (n) => ({ phone: `+1${n}` }),
];
const STATUS: Readonly<Record<string, string>> = { completed: 'COMPLETED', busy: 'BUSY', 'no-answer': 'NO_ANSWER', missed: 'NO_ANSWER' };

let simulator: Simulator;
let directory: string;

beforeAll(async () => {
  simulator = await startSimulator({ businesses: 1, calls: 400, voicemails: 40, numbers: 2, seed: 13, rateLimit: false });
  directory = mkdtempSync(join(tmpdir(), 'callsync-hubspot-backfill-'));
});

afterAll(async () => {
  await simulator.close();
  await rm(directory, { recursive: true, force: true });
});

/** Each call's and voicemail's unique value and the other party's number. */
function otherParties(): Map<string, string> {
  const truth = simulator.truth(BUSINESS);
  const parties = new Map<string, string>();
  for (const call of truth.calls)
    parties.set(`${BUSINESS}:calls:${call.id}`, String(call.expected.direction === 'outbound' ? call.expected.to_number : call.expected.from_number));
  for (const voicemail of truth.voicemails) parties.set(`${BUSINESS}:voicemails:${voicemail.id}`, String(voicemail.expected.from_number));
  return parties;
}

describe('callsync backfill into HubSpot with contacts typed by people', () => {
  let fake: FakeHubSpot;
  afterAll(async () => fake.close());

  it('associates every call and voicemail whose other party is a contact, maps hs_call_status, and a re-run adds nothing', async () => {
    const parties = otherParties();
    const known = [...new Set(parties.values())].filter((_, index) => index % 2 === 0).slice(0, 60);
    fake = await startFakeHubSpot({
      contacts: known.map((number, index) => ({ firstname: `c${index}`, ...FORMATS[index % FORMATS.length]?.(number.slice(2)) })),
    });
    const contactOf = new Map(known.map((number, index) => [number, fake.contacts().find((contact) => contact.properties.firstname === `c${index}`)?.id]));
    const sink = { type: 'hubspot', token: fake.token, baseUrl: fake.baseUrl, state: { type: 'sqlite', path: join(directory, 'state.db') } };
    const config = testConfig(simulator, '', { rateLimit: false, streams: ['calls', 'voicemails'], sink });

    const first = await backfillOnce(config);
    expect(first.outcomes.flatMap((outcome) => outcome.streams).map((stream) => stream.failure)).toEqual([undefined, undefined]);
    expect(total(first, 'deadLettered')).toBe(0);
    const calls = new Map(fake.calls().map((call) => [call.properties.callsync_id ?? '', call]));
    expect(calls.size).toBe(parties.size);
    const expected = [...parties].flatMap(([unique, number]) => (contactOf.has(number) ? [`${calls.get(unique)?.id}>${contactOf.get(number)}`] : []));
    expect(expected.length).toBeGreaterThan(20);
    const associations = () =>
      fake
        .associations()
        .map((association) => `${association.fromId}>${association.toId}`)
        .sort();
    expect(associations()).toEqual(expected.sort());

    for (const call of simulator.truth(BUSINESS).calls) {
      const status = (call.raw as { status?: string }).status ?? '';
      expect(calls.get(`${BUSINESS}:calls:${call.id}`)?.properties.hs_call_status).toBe(STATUS[status]);
    }
    expect(new Set([...calls.values()].map((call) => call.properties.hs_call_status))).toEqual(new Set(['COMPLETED', 'BUSY', 'NO_ANSWER', undefined]));

    const second = await backfillOnce(config);
    expect(total(second, 'written')).toBe(0);
    expect(fake.calls()).toHaveLength(parties.size);
    expect(associations()).toEqual(expected.sort());
    expect(fake.contacts()).toHaveLength(known.length);
    expect(fake.refusals()).toEqual({});
  });
});
