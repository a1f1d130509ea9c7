import { describe, expect, it } from 'vitest';
import { VersionClock } from './versions.js';

describe('VersionClock', () => {
  it('is microseconds of the clock, strictly increasing when the clock stands still or steps back', () => {
    let now = 1_700_000_000_000;
    const clock = new VersionClock(() => now);
    const first = clock.next();
    expect(first).toBe(1_700_000_000_000_000n);
    expect(clock.next()).toBe(first + 1n);
    now -= 5_000;
    expect(clock.next()).toBe(first + 2n);
    now += 10_000;
    expect(clock.next()).toBe(1_700_000_005_000_000n);
  });
});
