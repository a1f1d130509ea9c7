import pg from 'pg';
import { postgresUrl, uniqueName } from '../integration/services.js';
import { describeTracedPath } from './path-suite.js';
import { tracedBackfill } from './traced-backfill.js';

describeTracedPath('postgres', async () => {
  const schema = uniqueName('path');
  try {
    return await tracedBackfill({ type: 'postgres', url: postgresUrl, schema });
  } finally {
    const client = new pg.Client({ connectionString: postgresUrl });
    await client.connect();
    await client.query(`drop schema if exists "${schema}" cascade`).finally(() => client.end());
  }
});
