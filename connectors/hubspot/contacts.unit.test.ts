import { pino } from 'pino';
import { MockAgent } from 'undici';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ContactResolver } from './contacts.js';
import { fakeClock, mockedHubSpotHttp, ORIGIN } from '../../test/support/hubspot-mock-portal.js';

const SEARCH = { path: '/crm/v3/objects/contacts/search', method: 'POST' } as const;

interface SearchBody {
  filterGroups: { filters: { propertyName: string; values: string[] }[] }[];
}

describe('ContactResolver', () => {
  let agent: MockAgent;
  let bodies: SearchBody[];
  let resolver: (maxCached?: number) => ContactResolver;

  beforeEach(() => {
    agent = new MockAgent();
    agent.disableNetConnect();
    bodies = [];
    const clock = fakeClock();
    const http = mockedHubSpotHttp(agent, clock, { retry: { maxAttempts: 4, baseDelayMs: 10, maxDelayMs: 100 } });
    resolver = (maxCached) =>
      new ContactResolver({ http, createContacts: false, clock, logger: pino({ level: 'silent' }), ...(maxCached === undefined ? {} : { maxCached }) });
  });
  afterEach(async () => agent.close());

  /** Answers searches with these contacts (those whose typed phone is among the searched values' numbers). */
  function answer(contacts: readonly { id: string; phone: string }[], times = 1): void {
    agent
      .get(ORIGIN)
      .intercept(SEARCH)
      .reply((options) => {
        const parsed = JSON.parse(typeof options.body === 'string' ? options.body : '{}') as SearchBody;
        bodies.push(parsed);
        const values = new Set(parsed.filterGroups.flatMap((group) => group.filters.flatMap((filter) => filter.values)));
        const results = contacts
          .filter((contact) => values.has(contact.phone.replace(/\D/g, '').slice(-10)))
          .map((contact) => ({ id: contact.id, properties: { phone: contact.phone } }));
        return { statusCode: 200, data: { total: results.length, results: [...results].reverse() } };
      })
      .times(times);
  }

  const number = (index: number) => `+1415555${String(index).padStart(4, '0')}`;

  it('searches once per 100 distinct numbers and matches the typed phone; the lowest id wins', async () => {
    answer(
      [
        { id: '9', phone: '(415) 555-0007' },
        { id: '12', phone: '415.555.0007' },
        { id: '30', phone: '+1 415 555 0140' },
      ],
      2,
    );
    const numbers = Array.from({ length: 150 }, (_, index) => number(index));
    const found = await resolver().resolveAll([...numbers, ...numbers]);
    expect(
      bodies.map(
        (body) => new Set(body.filterGroups.flatMap((group) => group.filters.flatMap((filter) => filter.values)).filter((value) => value.length === 11)).size,
      ),
    ).toEqual([100, 50]);
    expect([found.get(number(7)), found.get(number(140)), found.get(number(8)), found.size]).toEqual(['9', '30', null, 150]);
    agent.assertNoPendingInterceptors();
  });

  it('answers known numbers from its cache, and searches again for numbers dropped beyond maxCached', async () => {
    answer([{ id: '5', phone: '4155550001' }], 3);
    const contacts = resolver(2);
    await contacts.resolveAll([number(1), number(2)]);
    await contacts.resolveAll([number(1), number(2)]);
    expect(bodies).toHaveLength(1);
    await contacts.resolveAll([number(3)]);
    expect(await contacts.resolveAll([number(1)])).toEqual(new Map([[number(1), '5']]));
    expect(bodies).toHaveLength(3);
  });

  it('waits out a 429 and answers; never "no contact" because of it', async () => {
    agent.get(ORIGIN).intercept(SEARCH).reply(429, { status: 'error', errorType: 'RATE_LIMIT', policyName: 'SECONDLY', message: 'secondly' });
    answer([{ id: '5', phone: '(415) 555-0001' }]);
    expect(await resolver().resolveAll([number(1)])).toEqual(new Map([[number(1), '5']]));
  });

  it('throws when the search keeps failing, and searches again next time', async () => {
    agent.get(ORIGIN).intercept(SEARCH).reply(429, { status: 'error', errorType: 'RATE_LIMIT', policyName: 'SECONDLY', message: 'secondly' }).times(4);
    const contacts = resolver();
    await expect(contacts.resolveAll([number(1)])).rejects.toMatchObject({ kind: 'rate_limited' });
    answer([{ id: '5', phone: '(415) 555-0001' }]);
    expect(await contacts.resolveAll([number(1)])).toEqual(new Map([[number(1), '5']]));
  });
});
