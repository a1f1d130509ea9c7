import { clickhouseUrl, uniqueName } from '../integration/services.js';
import { describeTracedPath } from './path-suite.js';
import { PAGE_SIZE, tracedBackfill } from './traced-backfill.js';

const server = new URL(clickhouseUrl).origin;

/** Runs one statement on ClickHouse's HTTP interface (test code: not traced). */
async function command(query: string): Promise<void> {
  const url = new URL(server);
  url.searchParams.set('query', query);
  const response = await fetch(url, { method: 'POST', signal: AbortSignal.timeout(30_000) });
  if (!response.ok) throw new Error(`ClickHouse ${response.status}: ${(await response.text()).trim().slice(0, 200)}`);
}

// A database of its own, which the sink creates; flushes of one page (ClickHouse's default gathers
// 5,000 records), so each cut is one page's whole path.
describeTracedPath('clickhouse', async () => {
  const database = uniqueName('path');
  try {
    return await tracedBackfill({ type: 'clickhouse', url: server, database, flush: { maxRows: PAGE_SIZE } });
  } finally {
    await command(`DROP DATABASE IF EXISTS ${database}`);
  }
});
