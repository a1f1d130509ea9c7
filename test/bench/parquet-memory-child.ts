/**
 * The sync process of the Parquet figure's memory row, run compiled by fig-parquet.ts (`node
 * <build>/test/bench/parquet-memory-child.js <upstream JSON> <folder>`): one backfill of the calls
 * stream into Parquet files under `<folder>/lake` (state in `<folder>/state.db`) under
 * memory-child-runner.ts.
 */
import { join } from 'node:path';
import { parquetConfigSchema } from '../../connectors/parquet/index.js';
import { backfillCalls, runMemoryChild } from './memory-child-runner.js';

await runMemoryChild({
  args: ['<folder>'],
  backfill: (upstream, [folder]) =>
    backfillCalls(
      upstream,
      parquetConfigSchema.parse({
        type: 'parquet',
        storage: { type: 'folder', path: join(folder, 'lake') },
        state: { type: 'sqlite', path: join(folder, 'state.db') },
      }),
    ),
});
