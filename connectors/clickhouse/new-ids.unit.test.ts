import { describe, expect, it } from 'vitest';
import { IdHashes, NewIds } from './new-ids.js';

const ids = (prefix: string, count: number): string[] => Array.from({ length: count }, (_, index) => `${prefix}-${index}`);

describe('IdHashes: which ids were certainly never written', () => {
  it('says yes for every id added, through its growth from 1,024 slots', () => {
    const hashes = new IdHashes();
    const written = ids('CA', 200_000);
    for (const id of written) hashes.add(id);
    hashes.add(written[0] ?? '');
    // Distinct hashes: two of 200,000 ids share one about 5 times.
    expect(hashes.size).toBeGreaterThan(199_950);
    expect(hashes.size).toBeLessThanOrEqual(200_000);
    expect(written.filter((id) => !hashes.has(id))).toEqual([]);
  });

  it('says no for nearly every other id (a yes only sends that id to the read)', () => {
    const hashes = new IdHashes();
    for (const id of ids('CA', 200_000)) hashes.add(id);
    // 200,000 others against 200,000 hashes of 32 bits: about 9 collisions expected.
    expect(ids('CB', 200_000).filter((id) => hashes.has(id)).length).toBeLessThan(100);
    expect(new IdHashes().has('')).toBe(false);
  });
});

describe('NewIds: per business × stream', () => {
  it('knows nothing of a stream until found, keeps a table that held the business as null, and forgets on demand', () => {
    const newIds = new NewIds();
    expect(newIds.known('acme', 'calls')).toBeUndefined();
    const hashes = newIds.found('acme', 'calls', true);
    hashes?.add('c1');
    expect(newIds.known('acme', 'calls')?.has('c1')).toBe(true);
    expect(newIds.known('globex', 'calls')).toBeUndefined();
    expect(newIds.found('globex', 'calls', false)).toBeNull();
    expect(newIds.known('globex', 'calls')).toBeNull();
    newIds.forget('acme', 'calls');
    expect(newIds.known('acme', 'calls')).toBeUndefined();
  });
});
