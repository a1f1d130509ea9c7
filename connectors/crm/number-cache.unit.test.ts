import { describe, expect, it } from 'vitest';
import { NEGATIVE_CACHE_MS, NumberCache } from './number-cache.js';

function cacheWith(directory: Record<string, string>, options: { perLookup?: number; maxCached?: number } = {}) {
  const clock = {
    at: 0,
    now() {
      return this.at;
    },
  };
  const asked: string[][] = [];
  let failNext = false;
  const cache = new NumberCache({
    clock,
    ...options,
    lookUp: (numbers) => {
      asked.push([...numbers]);
      if (failNext) {
        failNext = false;
        return Promise.reject(new Error('search failed'));
      }
      return Promise.resolve(new Map(numbers.map((number) => [number, directory[number] ?? null])));
    },
  });
  return { cache, clock, asked, failOnce: () => (failNext = true) };
}

describe('CRM number cache', () => {
  it('asks once for concurrent lookups of a number, in chunks of perLookup, and keeps found ids', async () => {
    const { cache, asked } = cacheWith({ '+1': 'c1', '+3': 'c3' }, { perLookup: 2 });
    const [first, second] = await Promise.all([cache.resolveAll(['+1', '+2', '+3']), cache.resolveAll(['+3', '+1'])]);
    expect(first).toEqual(
      new Map([
        ['+1', 'c1'],
        ['+2', null],
        ['+3', 'c3'],
      ]),
    );
    expect(second).toEqual(
      new Map([
        ['+3', 'c3'],
        ['+1', 'c1'],
      ]),
    );
    expect(asked).toEqual([['+1', '+2'], ['+3']]);
    await cache.resolveAll(['+1', '+3']);
    expect(asked).toHaveLength(2);
  });

  it('believes a miss for ten minutes, forgets a failed lookup, and asks again for a forgotten number', async () => {
    const { cache, clock, asked, failOnce } = cacheWith({ '+1': 'c1' });
    await cache.resolveAll(['+2']);
    clock.at = NEGATIVE_CACHE_MS - 1;
    await cache.resolveAll(['+2']);
    expect(asked).toEqual([['+2']]);
    clock.at = NEGATIVE_CACHE_MS;
    await cache.resolveAll(['+2']);
    expect(asked).toEqual([['+2'], ['+2']]);

    failOnce();
    await expect(cache.resolveAll(['+1'])).rejects.toThrow('search failed');
    expect(await cache.resolveAll(['+1'])).toEqual(new Map([['+1', 'c1']]));
    cache.forget('+1');
    await cache.resolveAll(['+1']);
    expect(asked.slice(2)).toEqual([['+1'], ['+1'], ['+1']]);
  });

  it('keeps at most maxCached numbers, dropping the oldest', async () => {
    const { cache, asked } = cacheWith({}, { maxCached: 2 });
    await cache.resolveAll(['+1', '+2', '+3']);
    await cache.resolveAll(['+3']);
    await cache.resolveAll(['+1']);
    expect(asked).toEqual([['+1', '+2', '+3'], ['+1']]);
  });
});
