import { clickhouseUrl, uniqueName } from '../integration/services.js';
import { describeTracedPath } from './path-suite.js';
import { tracedBackfill } from './traced-backfill.js';

const server = new URL(clickhouseUrl).origin;

/** Runs one statement on ClickHouse's HTTP interface (test code: not traced). */
async function command(query: string): Promise<void> {
  const url = new URL(server);
  url.searchParams.set('query', query);
  const response = await fetch(url, { method: 'POST', signal: AbortSignal.timeout(30_000) });
  if (!response.ok) throw new Error(`ClickHouse ${response.status}: ${(await response.text()).trim().slice(0, 200)}`);
}

// A database of its own, which the sink creates; every page is a flush by itself, as by default.
describeTracedPath('clickhouse', async () => {
  const database = uniqueName('path');
  try {
    return await tracedBackfill({ type: 'clickhouse', url: server, database });
  } finally {
    await command(`DROP DATABASE IF EXISTS ${database}`);
  }
});
