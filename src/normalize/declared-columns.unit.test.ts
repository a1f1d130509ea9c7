import { describe, expect, it } from 'vitest';
import type { Json } from '../base/json.js';
import { declaredValue, valueAtPath, withDeclaredColumns } from './declared-columns.js';
import { normalizeV1Call } from './records.js';

const context = { recordingsBaseUrl: 'https://calls.example.com', v2TimeZone: 'UTC' };

describe('declared columns', () => {
  it('follows a dotted path through objects only', () => {
    const raw: Json = { tracking: { source: 'google', tags: ['a'] }, flat: 1 };
    expect(valueAtPath(raw, ['tracking', 'source'])).toBe('google');
    expect(valueAtPath(raw, ['tracking', 'tags', '0'])).toBeUndefined();
    expect(valueAtPath(raw, ['flat', 'x'])).toBeUndefined();
    expect(valueAtPath(raw, ['missing'])).toBeUndefined();
  });

  it.each<[Json | undefined, Parameters<typeof declaredValue>[1], unknown]>([
    ['google', 'text', 'google'],
    [12, 'text', '12'],
    [true, 'text', 'true'],
    [{ a: 1 }, 'text', null],
    [42, 'integer', 42],
    ['0042', 'integer', 42],
    [4.5, 'integer', null],
    ['4.5', 'integer', null],
    [4.5, 'number', 4.5],
    ['4.5', 'number', null],
    [true, 'boolean', 1],
    [false, 'boolean', 0],
    ['true', 'boolean', null],
    ['2024-03-05T16:07:09+02:00', 'timestamp', '2024-03-05T14:07:09Z'],
    ['soon', 'timestamp', null],
    [undefined, 'text', null],
  ])('%j as %s is %j', (value, type, expected) => {
    expect(declaredValue(value, type)).toBe(expected);
  });

  it('adds the declared fields to what the stream normalizer gives, and never fails a record for them', () => {
    const normalize = withDeclaredColumns(normalizeV1Call, [
      { name: 'lead_source', from: ['tracking', 'source'], type: 'text' },
      { name: 'score', from: ['score'], type: 'integer' },
    ]);
    const result = normalize({ id: 'c1', created_at: '2024-03-05T14:07:09Z', tracking: { source: 'google' }, score: 'high' }, context);
    expect(result.ok && result.fields).toMatchObject({ lead_source: 'google', score: null, created_at: '2024-03-05T14:07:09Z' });
    expect(normalize({ id: 'c2' }, context)).toEqual({ ok: false, reason: 'created_at: missing' });
  });
});
