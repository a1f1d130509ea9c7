import { mkdtempSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startSimulator, type OutboundToNumber, type Simulator } from '../../../simulator/index.js';
import { startFakeHubSpot, type FakeHubSpot } from '../../fakes/hubspot/index.js';
import { backfillOnce, testConfig, total, type BackfillRun } from '../support/backfill-harness.js';

const BUSINESS = 'biz-1';
/** The four ways people type a US number `n` (10 digits) into a contact's phone. */
const TYPED: readonly ((n: string) => string)[] = [
  (n) => `+1${n}`,
  (n) => `(${n.slice(0, 3)}) ${n.slice(3, 6)}-${n.slice(6)}`,
  (n) => `${n.slice(0, 3)}.${n.slice(3, 6)}.${n.slice(6)}`,
  (n) => n,
];

const directory = mkdtempSync(join(tmpdir(), 'callsync-hubspot-party-'));
const closers: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const close of closers.splice(0).reverse()) await close();
  await rm(directory, { recursive: true, force: true });
});

interface Played {
  readonly simulator: Simulator;
  /** callsync_id → the customer's number (the one that is not a tracked number), from the simulator's truth. */
  readonly customers: Map<string, string>;
  readonly outbound: ReadonlySet<string>;
  readonly tracked: readonly string[];
}

async function play(outboundToNumber: OutboundToNumber): Promise<Played> {
  const simulator = await startSimulator({ businesses: 1, calls: 300, voicemails: 30, numbers: 3, seed: 29, rateLimit: false, outboundToNumber });
  closers.push(() => simulator.close());
  const truth = simulator.truth(BUSINESS);
  const tracked = truth.numbers.map((number) => String(number.expected.number));
  const customers = new Map<string, string>();
  const outbound = new Set<string>();
  for (const [stream, records] of [
    ['calls', truth.calls],
    ['voicemails', truth.voicemails],
  ] as const) {
    for (const record of records) {
      const { from_number: from, to_number: to, direction } = record.expected;
      const unique = `${BUSINESS}:${stream}:${record.id}`;
      customers.set(unique, String(tracked.includes(String(from)) ? to : from));
      if (direction === 'outbound') outbound.add(unique);
    }
  }
  return { simulator, customers, outbound, tracked };
}

/** 50 customers as contacts, their phones typed four ways, outbound callers first. */
async function portalWithContacts(played: Played): Promise<{ fake: FakeHubSpot; contactOf: Map<string, string> }> {
  const outboundCallers = [...played.outbound].map((unique) => played.customers.get(unique) ?? '');
  const chosen = [...new Set([...outboundCallers, ...played.customers.values()])].slice(0, 50);
  const fake = await startFakeHubSpot({
    contacts: chosen.map((number, index) => ({ firstname: `c${index}`, phone: TYPED[index % TYPED.length]?.(number.slice(2)) ?? number })),
  });
  closers.push(() => fake.close());
  const ids = new Map(fake.contacts().map((contact) => [contact.properties.firstname, contact.id]));
  return { fake, contactOf: new Map(chosen.map((number, index) => [number, ids.get(`c${index}`) ?? ''])) };
}

function hubspotSink(fake: FakeHubSpot, name: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { type: 'hubspot', token: fake.token, baseUrl: fake.baseUrl, state: { type: 'sqlite', path: join(directory, `${name}.db`) }, ...extra };
}

/** Every `call>contact` association the portal holds, and the ones the truth asks for. */
function associationsOf(fake: FakeHubSpot, played: Played, contactOf: Map<string, string>): { actual: string[]; expected: string[] } {
  const callIds = new Map(fake.calls().map((call) => [call.properties.callsync_id ?? '', call.id]));
  const expected = [...played.customers].flatMap(([unique, number]) => (contactOf.has(number) ? [`${callIds.get(unique)}>${contactOf.get(number)}`] : []));
  return {
    actual: fake
      .associations()
      .map((association) => `${association.fromId}>${association.toId}`)
      .sort(),
    expected: expected.sort(),
  };
}

/** `<business>/<stream>: <note>` for every note of the run (shown in the summary and status, no warning). */
function notesOf(run: BackfillRun): string[] {
  return run.outcomes.flatMap((outcome) =>
    outcome.streams.flatMap((stream) => (stream.result?.notes ?? []).map((note) => `${outcome.business}/${stream.stream}: ${note}`)),
  );
}

describe.each<OutboundToNumber>(['customer', 'tracked'])(
  'hubspot: the customer of a call is decided from the tracked numbers (simulator outboundToNumber %s)',
  (reading) => {
    it('associates every call and voicemail of 50 contacts typed four ways with its contact, numbers kept and never dead letters, nothing guessed', async () => {
      const played = await play(reading);
      const { fake, contactOf } = await portalWithContacts(played);
      const config = testConfig(played.simulator, '', { rateLimit: false, sink: hubspotSink(fake, `numbers-${reading}`) });

      const run = await backfillOnce(config);
      expect(run.outcomes.flatMap((outcome) => outcome.streams.map((stream) => [stream.stream, stream.failure]))).toEqual([
        ['numbers', undefined],
        ['calls', undefined],
        ['voicemails', undefined],
      ]);
      expect(total(run, 'deadLettered')).toBe(0);
      expect(run.warnings).toEqual([]);
      expect(notesOf(run)).toEqual([]);
      const { actual, expected } = associationsOf(fake, played, contactOf);
      const outboundAssociated = [...played.outbound].filter((unique) => contactOf.has(played.customers.get(unique) ?? ''));
      expect(outboundAssociated.length).toBeGreaterThan(10);
      expect(expected.length).toBeGreaterThanOrEqual(50);
      expect(actual).toEqual(expected);
      expect(fake.calls()).toHaveLength(played.customers.size);

      const again = await backfillOnce(config);
      expect(total(again, 'deadLettered')).toBe(0);
      expect(notesOf(again)).toEqual([]);
      expect(associationsOf(fake, played, contactOf).actual).toEqual(expected);
    });

    it('takes tracked numbers from the config when the numbers stream is not synced, typed any way', async () => {
      const played = await play(reading);
      const { fake, contactOf } = await portalWithContacts(played);
      const trackedNumbers = played.tracked.map((number, index) => TYPED[(index + 1) % TYPED.length]?.(number.slice(2)) ?? number);
      const config = testConfig(played.simulator, '', {
        rateLimit: false,
        streams: ['calls', 'voicemails'],
        sink: hubspotSink(fake, `config-${reading}`, { trackedNumbers }),
      });
      const run = await backfillOnce(config);
      expect(notesOf(run)).toEqual([]);
      const { actual, expected } = associationsOf(fake, played, contactOf);
      expect(actual).toEqual(expected);
    });

    it('without any tracked number, the direction decides: every call counted and shown, the outbound ones wrong only under the spec reading', async () => {
      const played = await play(reading);
      const { fake, contactOf } = await portalWithContacts(played);
      const config = testConfig(played.simulator, '', { rateLimit: false, streams: ['calls', 'voicemails'], sink: hubspotSink(fake, `none-${reading}`) });
      const run = await backfillOnce(config);
      const calls = played.simulator.truth(BUSINESS).calls.length;
      const voicemails = played.simulator.truth(BUSINESS).voicemails.length;
      expect(run.warnings).toEqual([]);
      expect(notesOf(run)).toEqual([
        expect.stringMatching(new RegExp(`^${BUSINESS}/calls: ${calls} call\\(s\\) had both or neither number among the business's tracked numbers`)),
        expect.stringMatching(new RegExp(`^${BUSINESS}/voicemails: ${voicemails} call\\(s\\) had both or neither number`)),
      ]);
      const { actual, expected } = associationsOf(fake, played, contactOf);
      if (reading === 'customer') expect(actual).toEqual(expected);
      else expect(actual).not.toEqual(expected);
    });
  },
);
