import { describe, expect, it } from 'vitest';
import { firstValue, flattenHeaders, headerValue } from './headers.js';

describe('headers', () => {
  it('takes the first of repeated values', () => {
    expect(firstValue(['a', 'b'])).toBe('a');
    expect(firstValue('a')).toBe('a');
    expect(firstValue(undefined)).toBeUndefined();
  });

  it('reads one header case-insensitively from a record or a Headers', () => {
    expect(headerValue({ 'Retry-After': '3' }, 'retry-after')).toBe('3');
    expect(headerValue({ 'retry-after': ['3', '4'] }, 'Retry-After')).toBe('3');
    expect(headerValue(new Headers({ 'Retry-After': '5' }), 'retry-after')).toBe('5');
    expect(headerValue(undefined, 'retry-after')).toBeUndefined();
  });

  it('flattens to lower-case names with one value each', () => {
    expect(flattenHeaders({ 'X-Limit': ['1', '2'], etag: 'x', gone: undefined })).toEqual({ 'x-limit': '1', etag: 'x', gone: undefined });
  });
});
