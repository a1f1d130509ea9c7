import pg from 'pg';
import { STAGED_MIN_ROWS } from '../../connectors/sql/statements.js';
import { postgresUrl, uniqueName } from '../integration/services.js';
import { describeTracedPath } from './path-suite.js';
import { tracedBackfill } from './traced-backfill.js';

describeTracedPath('postgres', async () => {
  const schema = uniqueName('path');
  try {
    // A flush of one page, and pages large enough to go by COPY: each cut is one page's whole path
    // (a flush of several pages enters the stages up to normalize once a page, then the sink once).
    return await tracedBackfill({ type: 'postgres', url: postgresUrl, schema, flush: { maxRows: STAGED_MIN_ROWS } }, STAGED_MIN_ROWS);
  } finally {
    const client = new pg.Client({ connectionString: postgresUrl });
    await client.connect();
    await client.query(`drop schema if exists "${schema}" cascade`).finally(() => client.end());
  }
});
