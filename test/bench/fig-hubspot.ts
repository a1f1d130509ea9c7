import { join } from 'node:path';
import { pino } from 'pino';
import { Agent } from 'undici';
import { hubspotConfigSchema } from '../../connectors/hubspot/config.js';
import { createHubSpotSink } from '../../connectors/hubspot/sink.js';
import { openStateStore } from '../../connectors/state-stores/index.js';
import { callColumns } from '../../src/normalize/index.js';
import type { StreamTable, SyncRecord } from '../../src/sink/sink.js';
import { startFakeHubSpot } from '../fakes/hubspot/index.js';
import { fixed, perSecond, verdict, type BenchContext, type BenchRow } from './result.js';

const BATCH = 100;
/** HubSpot's published limits the fake enforces in real time (Free/Starter private app). */
const LIMITS = { requestsPer10s: 100, searchPerSecond: 5 } as const;
/** Every fifth caller is a contact, typed the way people type numbers. */
const FORMATS: readonly ((national: string) => Record<string, string>)[] = [
  (n) => ({ phone: `(${n.slice(0, 3)}) ${n.slice(3, 6)}-${n.slice(6)}` }),
  (n) => ({ mobilephone: `${n.slice(0, 3)}.${n.slice(3, 6)}.${n.slice(6)}` }),
  (n) => ({ phone: `+1 ${n.slice(0, 3)} ${n.slice(3, 6)} ${n.slice(6)}` }),
  (n) => ({ mobilephone: `1-${n.slice(0, 3)}-${n.slice(3, 6)}-${n.slice(6)}` }),
];
const callsTable: StreamTable = { stream: 'calls', table: 'calls', columns: callColumns };

/**
 * HubSpot throughput: calls written through the HubSpot sink, one batch of 100 after another as
 * the engine writes them, into the fake portal enforcing HubSpot's limits in real time. Every
 * batch has 100 new distinct callers (the worst case: one contact search per batch). The bound
 * is the records divided by the shortest time those limits allow for the requests this work
 * needs at the least (per batch: upsert and a read-back by the id property, counted against
 * 100 per 10 s; one search, 5 per second; the association, exempt from the 10-s window).
 */
export async function benchHubSpot(ctx: BenchContext): Promise<BenchRow[]> {
  const records = ctx.quick ? 6000 : 10_000;
  const batches = records / BATCH;
  const national = (index: number) => `415${String(2_000_000 + index).padStart(7, '0')}`;
  const contacts = Array.from({ length: records / 5 }, (_, index) => FORMATS[index % FORMATS.length]?.(national(index * 5)) ?? {});
  const fake = await startFakeHubSpot({ contacts });
  const logger = pino({ level: 'silent' });
  const config = hubspotConfigSchema.parse({
    type: 'hubspot',
    token: fake.token,
    baseUrl: fake.baseUrl,
    state: { type: 'sqlite', path: join(ctx.tmpDir, 'hubspot-state.db') },
    limits: LIMITS,
  });
  const dispatcher = new Agent();
  const sink = createHubSpotSink(config, { logger, dispatcher, store: await openStateStore(config.state, logger) });
  try {
    await sink.prepare([callsTable]);
    ctx.log(`hubspot: ${records} calls in batches of ${BATCH} at ${LIMITS.requestsPer10s} req/10 s and ${LIMITS.searchPerSecond} searches/s`);
    const started = performance.now();
    let written = 0;
    let deadLettered = 0;
    for (let batch = 0; batch < batches; batch += 1) {
      const part = Array.from({ length: BATCH }, (_, index) => call(batch * BATCH + index, national(batch * BATCH + index)));
      const result = await sink.write({ businessId: 'bench', table: callsTable, records: part, deadLetters: [] }, { batch });
      written += result.written;
      deadLettered += result.deadLettered;
    }
    const seconds = (performance.now() - started) / 1000;
    const rate = records / seconds;
    const bound = records / shortestSeconds(batches);
    const refusals = Object.values(fake.refusals()).reduce((sum, count) => sum + count, 0);
    const associated = fake.associations().length;
    const ratio = rate / bound;
    const requests = countBy(fake.requests().map((request) => request.path));
    return [
      {
        figure: `hubspot throughput (${records / 1000}k calls, HubSpot limits)`,
        measured: `${perSecond(rate)} = ${fixed(ratio)} of ${perSecond(bound)}, ${refusals} × 429`,
        target: '≥ 0.8 of bound, 0 × 429',
        status: verdict(ratio >= 0.8 && refusals === 0 && written === records && associated === contacts.length),
        details: {
          records,
          seconds,
          rate,
          bound,
          ratio,
          refusals: fake.refusals(),
          written,
          deadLettered,
          associated,
          contacts: contacts.length,
          requests,
          limits: LIMITS,
        },
      },
    ];
  } finally {
    await sink.close();
    await dispatcher.close();
    await fake.close();
  }
}

/**
 * The shortest time HubSpot's rolling windows allow for the requests `batches` batches need: the
 * k-th request counted by a window of `limit` per `ms` can go at ⌊k / limit⌋ × ms at the earliest.
 */
function shortestSeconds(batches: number): number {
  const counted = 2 * batches;
  const tenSecondly = Math.floor((counted - 1) / LIMITS.requestsPer10s) * 10;
  const search = Math.floor((batches - 1) / LIMITS.searchPerSecond);
  return Math.max(tenSecondly, search, 1);
}

function call(index: number, national: string): SyncRecord {
  const fields = {
    to_number: '+15550100001',
    from_number: `+1${national}`,
    direction: 'inbound',
    recording_url: `https://calls.example.com/recordings/${index}.wav`,
    transcription_text: `call ${index}`,
    created_at: new Date(Date.UTC(2024, 0, 1) + index * 60_000).toISOString(),
  };
  return { businessId: 'bench', id: String(index), source: 'v1', fields, raw: { id: index, status: 'completed', ...fields } };
}

function countBy(values: readonly string[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const value of values) counts[value] = (counts[value] ?? 0) + 1;
  return counts;
}
