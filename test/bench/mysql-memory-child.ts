/**
 * The sync process of the mysql figure's memory row, run compiled by fig-mysql.ts (`node
 * <build>/test/bench/mysql-memory-child.js <upstream JSON> <mysql URL>`): one backfill of the calls
 * stream into MySQL under memory-child-runner.ts, as memory-child.ts does for SQLite.
 */
import { backfillCalls, runMemoryChild } from './memory-child-runner.js';

await runMemoryChild({
  args: ['<mysql URL>'],
  report: ['startRss', 'peakRss', 'vmHwm', 'secondHalfMax'],
  backfill: (upstream, [url]) => backfillCalls(upstream, { type: 'mysql', url }),
});
