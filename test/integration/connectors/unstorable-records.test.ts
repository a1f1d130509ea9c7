import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { pino } from 'pino';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createSink, type SinkConfig } from '../../../connectors/registry.js';
import { startSimulator, type Simulator } from '../../../simulator/index.js';
import { postgresUrl, uniqueName } from '../services.js';
import { backfillOnce, testConfig, total, type BackfillRun } from '../support/backfill-harness.js';

let simulator: Simulator;
let directory: string;
const schemas: string[] = [];

beforeAll(() => {
  directory = mkdtempSync(join(tmpdir(), 'callsync-unstorable-'));
});

beforeEach(async () => {
  // Calls 10, 11 and 12 of each business: nested 6,000 deep, a lone surrogate, a 2 MB transcription.
  const hostileRecords = { deepNesting: 6000, loneSurrogate: true, oversizedFieldBytes: 2 * 1024 * 1024, firstIndex: 10 };
  simulator = await startSimulator({ businesses: 2, calls: 60, voicemails: 0, numbers: 0, seed: 17, rateLimit: false, hostileRecords });
});

afterEach(async () => {
  await simulator.close();
});

afterAll(async () => {
  const client = new pg.Client({ connectionString: postgresUrl });
  await client.connect();
  for (const schema of schemas) await client.query(`drop schema if exists "${schema}" cascade`);
  await client.end();
});

async function deadLetterReasons(sink: SinkConfig, businessId: string): Promise<string[]> {
  const opened = await createSink(sink, { logger: pino({ level: 'silent' }) });
  try {
    return (await opened.deadLetters.list({ businessId, stream: 'calls' })).map((letter) => letter.reason);
  } finally {
    await opened.close();
  }
}

function failures(run: BackfillRun): unknown[] {
  return run.outcomes.flatMap((outcome) => outcome.streams).map((stream) => stream.failure);
}

const targets: [string, () => SinkConfig][] = [
  ['sqlite', () => ({ type: 'sqlite', path: join(directory, `unstorable-${String(Date.now())}.db`) })],
  [
    'postgres',
    () => {
      const schema = uniqueName('unstorable');
      schemas.push(schema);
      return { type: 'postgres', url: postgresUrl, schema };
    },
  ],
];

describe.each(targets)('pages holding records no database can store (%s)', (_name, sinkConfig) => {
  it('dead-letters each with its reason, stores the rest of its page, and the next run is clean', async () => {
    const sink = sinkConfig();
    const config = testConfig(simulator, '', { rateLimit: false, streams: ['calls'], pageSize: 25, sink });
    const stored = (): number => simulator.businesses.reduce((sum, business) => sum + simulator.truth(business.name).calls.length, 0) - 3 * 2;
    const first = await backfillOnce(config);
    expect(failures(first)).toEqual([undefined, undefined]);
    expect(total(first, 'written')).toBe(stored());
    const reasons = await deadLetterReasons(sink, 'biz-1');
    expect(reasons).toHaveLength(3);
    expect(reasons).toEqual(
      expect.arrayContaining([
        'raw: JSON nested deeper than 1000 levels',
        'transcription_text: lone surrogate in a string (not valid Unicode)',
        expect.stringMatching(/transcription/),
      ]),
    );

    // One more arrives upstream between runs: that page too is stored around it.
    simulator.addHostileCalls('biz-1', { deepNesting: 6000 });
    simulator.addCalls('biz-1', 3);
    const second = await backfillOnce(config);
    expect(failures(second)).toEqual([undefined, undefined]);
    expect(total(second, 'written')).toBe(3);
    expect(await deadLetterReasons(sink, 'biz-1')).toHaveLength(4);

    const third = await backfillOnce(config);
    expect(failures(third)).toEqual([undefined, undefined]);
    expect(total(third, 'written')).toBe(0);
  });
});
