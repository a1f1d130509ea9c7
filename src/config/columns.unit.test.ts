import { describe, expect, it } from 'vitest';
import { ConfigError, formatConfigError } from './errors.js';
import { resolveConfig } from './resolve.js';
import { minimalConfig, testSinkSchema } from '../../test/support/config-fixtures.js';

const noFiles = (path: string): string => {
  throw Object.assign(new Error(`no ${path}`), { code: 'ENOENT' });
};

function resolve(columns: unknown, streams: unknown[] = []) {
  const document = { ...minimalConfig(), streams, columns };
  return resolveConfig(document, { sinkSchema: testSinkSchema, env: {}, readFile: noFiles, file: 'config/test.yaml' });
}

function problems(columns: unknown, streams: unknown[] = []): string[] {
  try {
    resolve(columns, streams);
  } catch (error) {
    if (error instanceof ConfigError) return formatConfigError(error).split('\n');
    throw error;
  }
  return [];
}

const sms = { name: 'sms', path: '/sms', recordsKey: 'messages' };

describe('config columns:', () => {
  it('splits `from` at dots and keeps the declared type', () => {
    const { config } = resolve(
      { calls: [{ name: 'lead_source', from: 'tracking.source', type: 'text' }], sms: [{ name: 'body_text', from: 'body', type: 'text' }] },
      [sms],
    );
    expect(config.columns).toEqual({
      calls: [{ name: 'lead_source', from: ['tracking', 'source'], type: 'text' }],
      sms: [{ name: 'body_text', from: ['body'], type: 'text' }],
    });
  });

  it('names the path of each bad declaration', () => {
    expect(problems({ calls: [{ name: 'status', from: 'status', type: 'text' }] })).toEqual([
      'config/test.yaml: columns.calls[0].name: "status" is a built-in column of calls; pick another name',
    ]);
    expect(problems({ calls: [{ name: 'raw', from: 'x', type: 'text' }] })).toEqual([
      'config/test.yaml: columns.calls[0].name: is reserved (every table has business_id, id, source, raw, synced_at, deleted_at)',
    ]);
    expect(problems({ faxes: [{ name: 'a', from: 'x', type: 'text' }] })).toEqual([
      'config/test.yaml: columns.faxes: unknown stream "faxes" (expected one of calls, voicemails, numbers)',
    ]);
    expect(problems({ v2_calls: [{ name: 'a', from: 'x', type: 'text' }] })).toEqual([
      'config/test.yaml: columns.v2_calls: "v2_calls" is stored in the calls table: declare its columns under calls',
    ]);
    expect(problems({ calls: [{ name: 'a', from: 'x', type: 'float' }] })).toEqual([
      'config/test.yaml: columns.calls[0].type: expected one of text, integer, number, boolean, timestamp',
    ]);
    expect(problems({ calls: [{ name: 'a', from: 'tracking..source', type: 'text' }] })).toEqual([
      'config/test.yaml: columns.calls[0].from: expected a dotted path of field names (letters, digits, _ and -), e.g. tracking_source or tracking.source',
    ]);
    expect(problems({ calls: [{ name: 'Lead Source', from: 'x', type: 'text' }] })).toEqual([
      'config/test.yaml: columns.calls[0].name: expected a lower-case SQL identifier (^[a-z_][a-z0-9_]{0,62}$)',
    ]);
    expect(
      problems({
        calls: [
          { name: 'a', from: 'x', type: 'text' },
          { name: 'a', from: 'y', type: 'integer' },
        ],
      }),
    ).toEqual(['config/test.yaml: columns.calls[1].name: "a" is declared twice (also columns.calls[0])']);
    expect(problems({ sms: [{ name: 'created_at', from: 'x', type: 'timestamp' }] }, [sms])).toEqual([
      'config/test.yaml: columns.sms[0].name: "created_at" is a built-in column of sms; pick another name',
    ]);
  });

  it("keeps extra streams off the report views' names", () => {
    expect(problems({}, [{ name: 'calls_daily', path: '/x' }])[0]).toContain('streams[0].name: is reserved');
  });
});
