import { afterAll, describe, expect, it } from 'vitest';
import { startSimulator, type Simulator } from '../../../simulator/index.js';
import type { OutboundToNumber } from '../../../simulator/types.js';
import { testConfig } from '../support/backfill-harness.js';
import { backfillInto, startOrg, TYPED, type FakeOrg } from './harness.js';

const STREAMS = ['numbers', 'calls', 'voicemails'];

/** Each record's external id and its customer's number, from the simulator's truth and the reading it plays. */
function customers(simulator: Simulator, reading: OutboundToNumber): Map<string, string> {
  const parties = new Map<string, string>();
  for (const { name } of simulator.businesses) {
    const truth = simulator.truth(name);
    for (const call of truth.calls) {
      const customerIsCallee = call.expected.direction === 'outbound' && reading === 'customer';
      parties.set(`${name}:calls:${call.id}`, String(customerIsCallee ? call.expected.to_number : call.expected.from_number));
    }
    for (const voicemail of truth.voicemails) parties.set(`${name}:voicemails:${voicemail.id}`, String(voicemail.expected.from_number));
  }
  return parties;
}

/** 50 customers as Contacts and Leads (alternating), their phones typed four ways; number → record Id. */
function seedPeople(org: FakeOrg, parties: Map<string, string>): Map<string, string> {
  const numbers = [...new Set(parties.values())].filter((number) => /^\+1\d{10}$/.test(number)).slice(0, 50);
  return new Map(
    numbers.map((number, index) => {
      const typed = TYPED[index % TYPED.length]?.(number.slice(2)) ?? {};
      const id =
        index % 2 === 0
          ? org.fake.add('Contact', { LastName: `c${index}`, ...typed })
          : org.fake.add('Lead', { LastName: `l${index}`, Company: 'x', ...typed });
      return [number, id] as const;
    }),
  );
}

describe.each<OutboundToNumber>(['customer', 'tracked'])('backfill into Salesforce, outbound to_number = %s', (reading) => {
  let simulator: Simulator;
  let org: FakeOrg;
  afterAll(async () => {
    await simulator.close();
    await org.close();
  });

  it('writes every call and voicemail as exactly one Task with the right WhoId and Subject, and a rerun creates nothing', async () => {
    const businesses = reading === 'customer' ? 2 : 1;
    simulator = await startSimulator({
      businesses,
      calls: 900,
      voicemails: 100,
      numbers: 3,
      seed: 20 + businesses,
      rateLimit: false,
      outboundToNumber: reading,
    });
    org = await startOrg();
    const parties = customers(simulator, reading);
    const people = seedPeople(org, parties);
    expect(people.size).toBe(50);
    const config = testConfig(simulator, '', { rateLimit: false, streams: STREAMS, sink: org.sinkSection() });

    const first = await backfillInto(config);
    expect(first.outcomes.flatMap((outcome) => outcome.streams).map((stream) => stream.failure)).toEqual(
      STREAMS.flatMap(() => Array.from({ length: businesses }, () => undefined)),
    );
    const tasks = org.fake.tasks();
    const byExternalId = new Map(tasks.map((task) => [String(task.fields.Callsync_Id__c), task]));
    expect(tasks).toHaveLength(parties.size);
    expect(byExternalId.size).toBe(parties.size);
    expect([...byExternalId.keys()].sort()).toEqual([...parties.keys()].sort());
    let withWho = 0;
    for (const [externalId, number] of parties) {
      const task = byExternalId.get(externalId);
      expect(task?.fields.TaskSubtype).toBe('Call');
      expect(task?.fields.WhoId ?? null, `${externalId} (customer ${number})`).toBe(people.get(number) ?? null);
      // The Subject names the customer as the WhoId does, never the business's own number.
      expect(task?.fields.Subject, externalId).toMatch(new RegExp(`^(Inbound call from|Outbound call to|Voicemail from) \\${number}$`));
      if (people.has(number)) withWho += 1;
    }
    expect(withWho).toBeGreaterThanOrEqual(50);
    const patches = org.fake.requests().filter((request) => request.method === 'PATCH').length;

    const again = await backfillInto(config);
    expect(again.outcomes.flatMap((outcome) => outcome.streams).every((stream) => stream.failure === undefined && (stream.result?.written ?? 0) === 0)).toBe(
      true,
    );
    expect(
      org.fake
        .tasks()
        .map((task) => task.Id)
        .sort(),
    ).toEqual(tasks.map((task) => task.Id).sort());
    // Revisited records go again as upserts of the same Tasks; none is created.
    expect(org.fake.requests().filter((request) => request.method === 'PATCH').length).toBeGreaterThanOrEqual(patches);
  });
});
