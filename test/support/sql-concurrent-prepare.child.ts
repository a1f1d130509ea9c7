/**
 * One of several processes starting on the same database at once: waits for the shared start
 * instant, prepares a sink, writes one record and exits 0, or prints the error and exits 1.
 * Args: `<sink config JSON> <start epoch ms>`.
 */
import { pino } from 'pino';
import { createSink } from '../../connectors/registry.js';
import type { SinkConfig } from '../../connectors/registry.js';
import { customStream, workerRecord } from './sql-concurrent-prepare.js';

const [configJson = '', startAt = '0'] = process.argv.slice(2);
const config = JSON.parse(configJson) as SinkConfig;
const sink = await createSink(config, { logger: pino({ level: 'silent' }) });
await new Promise((resolve) => setTimeout(resolve, Math.max(0, Number(startAt) - Date.now())));
try {
  await sink.prepare([customStream]);
  const record = workerRecord(process.pid);
  await sink.write({ businessId: 'acme', table: customStream, records: [record], deadLetters: [] }, {});
} catch (error) {
  process.stderr.write(`${error instanceof Error ? `${error.message} ${String(error.cause)}` : String(error)}\n`);
  process.exitCode = 1;
} finally {
  await sink.close();
}
