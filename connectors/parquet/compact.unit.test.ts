import { describe, expect, it } from 'vitest';
import type { ObjectStore } from '../object-storage/index.js';
import type { ParquetEncoder } from './client.js';
import { compactWith } from './compact.js';
import { ParquetSinkError } from './errors.js';

/** Storage and an encoder that fail if touched: a refused partition reads and writes nothing. */
const untouched = new Proxy({} as ObjectStore & ParquetEncoder, {
  get: (_target, name) => {
    throw new Error(`touched ${String(name)}`);
  },
});

const now = (): number => Date.parse('2026-11-28T10:00:00Z');

describe('compactWith refuses before it reads anything', () => {
  it.each([
    ['not a date', '28-11-2026', 'PARQUET_PARTITION_INVALID', /"28-11-2026" is not a date\nfix: /],
    ['a day that does not exist', '2026-02-30', 'PARQUET_PARTITION_INVALID', /is not a date/],
    ['a month that does not exist', '2026-13-01', 'PARQUET_PARTITION_INVALID', /is not a date/],
    ["today's partition", '2026-11-28', 'PARQUET_PARTITION_OPEN', /the partition of 2026-11-28 is still open.*\nfix: .*--include-today/],
    ['a later day', '2026-11-29', 'PARQUET_PARTITION_OPEN', /still open/],
  ])('%s', async (_name, day, code, message) => {
    const refused = compactWith(untouched, untouched, { table: 'calls', businessId: 'acme', day }, { now });
    await expect(refused).rejects.toBeInstanceOf(ParquetSinkError);
    await expect(refused).rejects.toMatchObject({ code, message: expect.stringMatching(message) as unknown });
  });
});
