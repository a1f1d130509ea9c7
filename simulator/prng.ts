/** Small seeded randomness: every generated value derives from (seed, business, index), never from Math.random. */

/** Mixes integers into one 32-bit hash; the same inputs always give the same output. */
export function mix(...parts: number[]): number {
  let h = 0x811c9dc5;
  for (const part of parts) {
    // Both 32-bit halves are mixed so large indexes and timestamps still spread fully.
    h = step(h, part >>> 0);
    h = step(h, Math.floor(part / 4294967296) >>> 0);
  }
  return h >>> 0;
}

function step(h: number, word: number): number {
  let x = Math.imul(h ^ word, 0x01000193);
  x ^= x >>> 13;
  x = Math.imul(x, 0x5bd1e995);
  return x ^ (x >>> 15);
}

const HEX_BYTES = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, '0'));

/** mulberry32: fast, good enough for fake data, and tiny. */
export class Rng {
  #state: number;

  constructor(seed: number) {
    this.#state = seed >>> 0;
  }

  /** A float in [0, 1). */
  next(): number {
    this.#state = (this.#state + 0x6d2b79f5) >>> 0;
    let t = this.#state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }

  /** An integer in [min, max], both inclusive. */
  int(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1));
  }

  chance(probability: number): boolean {
    return this.next() < probability;
  }

  pick<T>(items: readonly T[]): T {
    const item = items[Math.floor(this.next() * items.length)];
    if (item === undefined) throw new Error('pick from an empty list');
    return item;
  }

  /** `length` lowercase hex digits. */
  hex(length: number): string {
    let out = '';
    // A byte table: Number#toString(16) on large doubles is the slowest step of record generation.
    while (out.length < length) {
      const word = Math.floor(this.next() * 4294967296);
      out += `${HEX_BYTES[word >>> 24]}${HEX_BYTES[(word >>> 16) & 255]}${HEX_BYTES[(word >>> 8) & 255]}${HEX_BYTES[word & 255]}`;
    }
    return out.length === length ? out : out.slice(0, length);
  }

  /** A random (version 4) UUID. */
  uuid(): string {
    const h = this.hex(32);
    const variant = ((parseInt(h[16] ?? '0', 16) & 0x3) | 0x8).toString(16);
    return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-${variant}${h.slice(17, 20)}-${h.slice(20, 32)}`;
  }
}
