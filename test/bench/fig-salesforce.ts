import { generateKeyPairSync } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { pino } from 'pino';
import { Agent } from 'undici';
import { salesforceConfigSchema } from '../../connectors/salesforce/config.js';
import { createSalesforceSink } from '../../connectors/salesforce/sink.js';
import { openStateStore } from '../../connectors/state-stores/index.js';
import { callColumns, voicemailColumns } from '../../src/normalize/index.js';
import type { StreamTable, SyncRecord } from '../../src/sink/sink.js';
import { startFakeSalesforce } from '../fakes/salesforce/index.js';
import { fixed, perSecond, verdict, type BenchContext, type BenchRow } from './result.js';

/** One business as the independent check's backfill held it: 2,000 calls and 100 voicemails. */
const CALLS_PER_BUSINESS = 2000;
const VOICEMAILS_PER_BUSINESS = 100;
/** A backfill writes each upstream page as it comes, and pages hold at most 500 records. */
const PAGE = 500;
/** New distinct callers per 200 calls (each calls twice), the worst case; every voicemail is from a new caller too. */
const NEW_PER_200 = 100;
/** Requests per 1,000 records: the limit without Lead creation, the goal with it (a composite of creates per page more). */
const LIMIT = 5;
const GOAL_WITH_LEADS = 8;
const TRACKED = '+15550100001';
const TYPED: readonly ((national: string) => Record<string, string>)[] = [
  (n) => ({ Phone: `(${n.slice(0, 3)}) ${n.slice(3, 6)}-${n.slice(6)}` }),
  (n) => ({ MobilePhone: `${n.slice(0, 3)}.${n.slice(3, 6)}.${n.slice(6)}` }),
  (n) => ({ Phone: `+1 ${n.slice(0, 3)} ${n.slice(3, 6)} ${n.slice(6)}` }),
  (n) => ({ MobilePhone: `1-${n.slice(0, 3)}-${n.slice(3, 6)}-${n.slice(6)}` }),
];
const callsTable: StreamTable = { stream: 'calls', table: 'calls', columns: callColumns };
const voicemailsTable: StreamTable = { stream: 'voicemails', table: 'voicemails', columns: voicemailColumns };

/**
 * Salesforce, written as a backfill writes: per business 2,000 calls in pages of 500, then its
 * 100 voicemails in one page of their own; every 200 calls bring 100 new distinct callers (every
 * fifth of them a Contact, typed the way people type numbers) and every voicemail a new caller,
 * into the fake org over loopback HTTP. Salesforce documents no per-second limit for REST
 * requests, only the daily allocation, so the figure is API requests (as Salesforce counts them:
 * the fake's allocation counter) per 1,000 records, the run's start (`describe`, ping) included,
 * and records per second on this machine. Once without and once with `createLeads`.
 */
export async function benchSalesforce(ctx: BenchContext): Promise<BenchRow[]> {
  const businesses = ctx.quick ? 3 : 5;
  const rows: BenchRow[] = [];
  for (const createLeads of [false, true]) rows.push(await run(ctx, businesses, createLeads));
  return rows;
}

async function run(ctx: BenchContext, businesses: number, createLeads: boolean): Promise<BenchRow> {
  const keys = generateKeyPairSync('rsa', {
    modulusLength: 2048,
    publicKeyEncoding: { type: 'spki', format: 'pem' },
    privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
  });
  const keyPath = join(ctx.tmpDir, `salesforce-${String(createLeads)}.key`);
  await writeFile(keyPath, keys.privateKey);
  const calls = businesses * CALLS_PER_BUSINESS;
  const voicemails = businesses * VOICEMAILS_PER_BUSINESS;
  const records = calls + voicemails;
  const callers = (calls / 200) * NEW_PER_200;
  // Call callers first, then one number per voicemail after them: no voicemail caller has called.
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
  const sink = createSalesforceSink(config, { logger, dispatcher, store: await openStateStore(config.state, logger) });
  try {
    ctx.log(
      `salesforce: ${businesses} businesses × (${CALLS_PER_BUSINESS} calls in pages of ${PAGE}, ${VOICEMAILS_PER_BUSINESS} voicemails), createLeads ${String(createLeads)}`,
    );
    const before = fake.usage();
    const started = performance.now();
    // As `callsync backfill` opens a sink: prepare, then ping.
    await sink.prepare([callsTable, voicemailsTable]);
    await sink.ping();
    const atStart = fake.usage() - before;
    let written = 0;
    let voicemailIndex = 0;
    for (let business = 0; business < businesses; business++) {
      const businessId = `bench${business}`;
      for (let start = 0; start < CALLS_PER_BUSINESS; start += PAGE) {
        const page = Array.from({ length: PAGE }, (_, offset) => {
          const index = business * CALLS_PER_BUSINESS + start + offset;
          // Two records per caller: 100 distinct new callers in every 200 records.
          return call(businessId, index, national(Math.floor(index / 2)));
        });
        written += (await sink.write({ businessId, table: callsTable, records: page, deadLetters: [] }, { start })).written;
      }
      const page = Array.from({ length: VOICEMAILS_PER_BUSINESS }, () => {
        voicemailIndex += 1;
        return voicemail(businessId, voicemailIndex, national(callers + voicemailIndex));
      });
      written += (await sink.write({ businessId, table: voicemailsTable, records: page, deadLetters: [] }, { start: 0 })).written;
    }
    const seconds = (performance.now() - started) / 1000;
    const requests = fake.usage() - before;
    const perThousand = (requests / records) * 1000;
    const writesPerThousand = ((requests - atStart) / records) * 1000;
    const withWho = fake.tasks().filter((task) => typeof task.fields.WhoId === 'string').length;
    const expectedWho = createLeads ? records : contacts.length * 2;
    const limit = createLeads ? GOAL_WITH_LEADS : LIMIT;
    return {
      figure: `9. salesforce${createLeads ? ' with createLeads' : ''} (${calls / 1000}k calls + ${voicemails} voicemails, pages ≤ ${PAGE})`,
      measured: `${fixed(perThousand)} API requests per 1,000 records = ${fixed(perThousand / limit)} of ${limit} (writes alone ${fixed(writesPerThousand)}); ${perSecond(records / seconds)}`,
      target: `≤ ${limit} requests / 1,000`,
      status: verdict(perThousand <= limit && written === records && withWho === expectedWho && fake.refusedForAllocation() === 0),
      details: {
        businesses,
        records,
        seconds,
        requests,
        atStart,
        perThousand,
        writesPerThousand,
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

function call(businessId: string, index: number, national: string): SyncRecord {
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
  return { businessId, id: String(index), source: 'v1', fields, raw: { id: index, ...fields } };
}

function voicemail(businessId: string, index: number, national: string): SyncRecord {
  const fields = {
    to_number: TRACKED,
    from_number: `+1${national}`,
    transcription_text: `voicemail ${index}`,
    api_recording_url: `https://calls.example.com/voicemails/${index}.wav`,
    created_at: new Date(Date.UTC(2024, 0, 1) + index * 60_000).toISOString(),
    duration_seconds: 20 + (index % 60),
  };
  return { businessId, id: `vm${index}`, source: 'v1', fields, raw: { id: index, ...fields } };
}

function countBy(values: readonly string[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const value of values) counts[value] = (counts[value] ?? 0) + 1;
  return counts;
}
