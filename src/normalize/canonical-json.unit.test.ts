import { describe, expect, it } from 'vitest';
import { canonicalJson } from './canonical-json.js';

describe('canonicalJson', () => {
  it('gives the same text whatever the key order, at every level', () => {
    expect(canonicalJson({ b: 1, a: { d: [2, { z: 1, y: 2 }], c: null } })).toBe('{"a":{"c":null,"d":[2,{"y":2,"z":1}]},"b":1}');
    expect(canonicalJson({ a: { c: null, d: [2, { y: 2, z: 1 }] }, b: 1 })).toBe(canonicalJson({ b: 1, a: { d: [2, { z: 1, y: 2 }], c: null } }));
  });

  it('keeps array order and leaves out undefined members, as JSON.stringify does', () => {
    expect(canonicalJson([3, 1, 2])).toBe('[3,1,2]');
    expect(canonicalJson({ a: undefined, b: 'x' })).toBe('{"b":"x"}');
    expect(canonicalJson('é"')).toBe(JSON.stringify('é"'));
  });
});
