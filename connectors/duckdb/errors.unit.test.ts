import { describe, expect, it } from 'vitest';
import { errorCodes } from '../../src/sink/sink-errors.js';
import { DuckDbError, duckDbFailure, explainDuckDbFailure } from './errors.js';

const sink = { key: 'sink.path', service: 'DuckDB', shown: './data/x.duckdb', lockName: 'duckdb:/x' };

describe('DuckDB failures an operator fixes', () => {
  it.each([
    [
      'IO Error: Could not set lock on file "/d/x.duckdb": Conflicting lock is held in /usr/bin/node (PID 9935). See also https://duckdb.org/docs/stable/connect/concurrency',
      'DUCKDB_LOCKED',
      'another process holds this DuckDB file',
    ],
    ['IO Error: Cannot open file "/sys/x.duckdb": Permission denied', 'DUCKDB_CANNOT_OPEN', 'cannot open or write there'],
    ['IO Error: Could not write file "/d/x.duckdb.wal": No space left on device', 'DUCKDB_DISK_FULL', 'the disk is full'],
  ])('%s', (message, code, said) => {
    const wrapped = duckDbFailure(new Error(message));
    expect(wrapped).toBeInstanceOf(DuckDbError);
    expect(errorCodes(wrapped)).toEqual([code]);
    const explained = explainDuckDbFailure(errorCodes(wrapped), sink);
    expect(explained?.what).toContain(said);
    expect(explained?.what).toContain('sink.path');
    expect(explained?.fix).toContain('sink.path');
    expect(explained?.cause).toBe('filesystem');
  });

  it('leaves any other failure as it is', () => {
    const other = new Error('Binder Error: table calls has no column x');
    expect(duckDbFailure(other)).toBe(other);
    expect(explainDuckDbFailure(errorCodes(other), sink)).toBeUndefined();
  });
});
