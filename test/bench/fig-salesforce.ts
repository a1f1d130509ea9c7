import { generateKeyPairSync } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { pino } from 'pino';
import { Agent } from 'undici';
import { salesforceConfigSchema } from '../../connectors/salesforce/config.js';
import { createSalesforceSink } from '../../connectors/salesforce/salesforce-sink.js';
import { openSqlStore } from '../../connectors/sql/open-sql-store.js';
import { callColumns } from '../../src/normalize/index.js';
import type { StreamTable, SyncRecord } from '../../src/sink.js';
import { startFakeSalesforce } from '../fakes/salesforce/index.js';
import { fixed, perSecond, verdict, type BenchContext, type BenchRow } from './result.js';

/** The sink's largest batch: five sObject Collections upserts of 200. */
const BATCH = 1000;
/** New distinct callers per 200 records (one upsert's worth), the worst case. */
const NEW_PER_200 = 100;
const GOAL = 8;
const TRACKED = '+15550100001';
const TYPED: readonly ((national: string) => Record<string, string>)[] = [
  (n) => ({ Phone: `(${n.slice(0, 3)}) ${n.slice(3, 6)}-${n.slice(6)}` }),
  (n) => ({ MobilePhone: `${n.slice(0, 3)}.${n.slice(3, 6)}.${n.slice(6)}` }),
  (n) => ({ Phone: `+1 ${n.slice(0, 3)} ${n.slice(3, 6)} ${n.slice(6)}` }),
  (n) => ({ MobilePhone: `1-${n.slice(0, 3)}-${n.slice(3, 6)}-${n.slice(6)}` }),
];
const callsTable: StreamTable = { stream: 'calls', table: 'calls', columns: callColumns };

/**
 * Salesforce: calls written through the Salesforce sink in batches of 1,000 (as the engine splits
 * a page at the sink's `maxBatchSize`), every 200 records with 100 new distinct callers (every
 * fifth of them a Contact typed the way people type numbers), into the fake org over loopback
 * HTTP. Salesforce documents no per-second limit for REST requests, only the daily allocation, so
 * the figure is API requests (as Salesforce counts them: the fake's `Sforce-Limit-Info`) per 1,000
 * new records, and records per second on this machine. Once without and once with `createLeads`.
 */
export async function benchSalesforce(ctx: BenchContext): Promise<BenchRow[]> {
  const records = ctx.quick ? 5000 : 10_000;
  const rows: BenchRow[] = [];
  for (const createLeads of [false, true]) rows.push(await run(ctx, records, createLeads));
  return rows;
}

async function run(ctx: BenchContext, records: number, createLeads: boolean): Promise<BenchRow> {
  const keys = generateKeyPairSync('rsa', {
    modulusLength: 2048,
    publicKeyEncoding: { type: 'spki', format: 'pem' },
    privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
  });
  const keyPath = join(ctx.tmpDir, `salesforce-${String(createLeads)}.key`);
  await writeFile(keyPath, keys.privateKey);
  const callers = (records / 200) * NEW_PER_200;
  const national = (index: number): string => `415${String(3_000_000 + index).padStart(7, '0')}`;
  const contacts = Array.from({ length: Math.floor(callers / 5) }, (_, index) => ({
    LastName: `c${index}`,
    ...(TYPED[index % TYPED.length]?.(national(index * 5)) ?? {}),
  }));
  const fake = await startFakeSalesforce({ certificate: keys.publicKey, contacts });
  const logger = pino({ level: 'silent' });
  const config = salesforceConfigSchema.parse({
    type: 'salesforce',
    loginUrl: fake.baseUrl,
    auth: { flow: 'jwt', consumerKey: fake.consumerKey, username: fake.username, privateKeyPath: keyPath },
    state: { type: 'sqlite', path: join(ctx.tmpDir, `salesforce-state-${String(createLeads)}.db`) },
    trackedNumbers: [TRACKED],
    who: { createLeads },
  });
  const dispatcher = new Agent();
  const sink = createSalesforceSink(config, { logger, dispatcher, store: await openSqlStore(config.state, logger) });
  try {
    await sink.prepare([callsTable]);
    ctx.log(`salesforce: ${records} calls in batches of ${BATCH}, ${NEW_PER_200} new callers per 200, createLeads ${String(createLeads)}`);
    const before = fake.usage();
    const started = performance.now();
    let written = 0;
    for (let start = 0; start < records; start += BATCH) {
      const part = Array.from({ length: Math.min(BATCH, records - start) }, (_, offset) => {
        const index = start + offset;
        // Two records per caller: 100 distinct new callers in every 200 records.
        return call(index, national(Math.floor(index / 2)));
      });
      written += (await sink.write({ businessId: 'bench', table: callsTable, records: part, deadLetters: [] }, { start })).written;
    }
    const seconds = (performance.now() - started) / 1000;
    const requests = fake.usage() - before;
    const perThousand = (requests / records) * 1000;
    const withWho = fake.tasks().filter((task) => typeof task.fields.WhoId === 'string').length;
    const expectedWho = createLeads ? records : contacts.length * 2;
    return {
      figure: `9. salesforce${createLeads ? ' with createLeads' : ''} (${records / 1000}k calls, ${NEW_PER_200} new callers / 200)`,
      measured: `${fixed(perThousand)} API requests per 1,000 records = ${fixed(perThousand / GOAL)} of ${GOAL}; ${perSecond(records / seconds)}`,
      target: `≤ ${GOAL} requests / 1,000`,
      status: verdict(perThousand <= GOAL && written === records && withWho === expectedWho && fake.refusedForAllocation() === 0),
      details: {
        records,
        seconds,
        requests,
        perThousand,
        written,
        withWho,
        expectedWho,
        contacts: contacts.length,
        leads: fake.leads().length,
        byMethod: countBy(fake.requests().map((request) => `${request.method} ${request.path.split('?')[0] ?? ''}`)),
      },
    };
  } finally {
    await sink.close();
    await dispatcher.close();
    await fake.close();
  }
}

function call(index: number, national: string): SyncRecord {
  const fields = {
    to_number: TRACKED,
    from_number: `+1${national}`,
    direction: 'inbound',
    recording_url: `https://calls.example.com/recordings/${index}.wav`,
    transcription_text: `call ${index}`,
    created_at: new Date(Date.UTC(2024, 0, 1) + index * 60_000).toISOString(),
    duration_seconds: 30 + (index % 300),
    status: 'completed',
  };
  return { businessId: 'bench', id: String(index), source: 'v1', fields, raw: { id: index, ...fields } };
}

function countBy(values: readonly string[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const value of values) counts[value] = (counts[value] ?? 0) + 1;
  return counts;
}
