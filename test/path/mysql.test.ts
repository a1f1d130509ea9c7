import { freshMysqlDatabase } from '../support/mysql-database.js';
import { describeTracedPath } from './path-suite.js';
import { tracedBackfill } from './traced-backfill.js';

// A database of its own beside this worker's (the integration setup checks MariaDB); every page is a flush by itself, as by default.
describeTracedPath('mysql', async () => {
  const database = await freshMysqlDatabase('path');
  try {
    return await tracedBackfill({ type: 'mysql', url: database.url });
  } finally {
    await database.drop();
  }
});
