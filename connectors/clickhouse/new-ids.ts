/**
 * Which ids of a stream are certainly not stored, so a commit need not ask ClickHouse. A stream
 * whose table held no row of the business when this store first wrote it (a first backfill) has
 * only the rows this store wrote since, and one writer holds a stream (the sink's lease); every
 * id written is kept as a 32-bit hash, so an id whose hash was never written is new. A hash
 * written before (the id, or a collision: about 1 in 14,000 ids after 300,000) sends that id to
 * the read, as every id of any other stream goes. `forget` drops what is known of a stream: the
 * checkpoint store calls it whenever it reads the checkpoint again, at every run's start, so a
 * stream another process wrote since is read again.
 */
export class NewIds {
  /** Per business × stream: the hashes written since the table was found without the business, or null when it was not. */
  readonly #streams = new Map<string, IdHashes | null>();

  /** What is known of the stream: undefined when nothing (the table must be asked), null when its ids must all be read. */
  known(businessId: string, stream: string): IdHashes | null | undefined {
    return this.#streams.get(streamKey(businessId, stream));
  }

  /** Records whether the table held a row of the business, when that was just read. */
  found(businessId: string, stream: string, empty: boolean): IdHashes | null {
    const hashes = empty ? new IdHashes() : null;
    this.#streams.set(streamKey(businessId, stream), hashes);
    return hashes;
  }

  /** A stream that grew past {@link MAX_IDS} ids is read again: the hashes would outgrow their use. */
  wrote(businessId: string, stream: string, hashes: IdHashes): void {
    if (hashes.size > MAX_IDS) this.#streams.set(streamKey(businessId, stream), null);
  }

  forget(businessId: string, stream: string): void {
    this.#streams.delete(streamKey(businessId, stream));
  }
}

/** Ids a stream's hashes may hold: a million take 8 MB (a 300k-call backfill's, 4 MB). */
const MAX_IDS = 1_000_000;

/** A set of 32-bit hashes of ids in one typed array (open addressing, at most half full). */
export class IdHashes {
  #slots = new Uint32Array(1024);
  #bits = 10;
  #size = 0;

  get size(): number {
    return this.#size;
  }

  add(id: string): void {
    if ((this.#size + 1) * 2 > this.#slots.length) this.#grow();
    if (place(this.#slots, this.#bits, hashOf(id))) this.#size += 1;
  }

  /** False only for an id never added; true for every id added (and for one in about 2^32 others per id). */
  has(id: string): boolean {
    const hash = hashOf(id);
    const mask = this.#slots.length - 1;
    for (let slot = start(hash, this.#bits); ; slot = (slot + 1) & mask) {
      const value = this.#slots[slot];
      if (value === 0) return false;
      if (value === hash) return true;
    }
  }

  #grow(): void {
    const old = this.#slots;
    this.#bits += 1;
    this.#slots = new Uint32Array(1 << this.#bits);
    for (const value of old) if (value !== 0) place(this.#slots, this.#bits, value);
  }
}

/** Puts a hash in its slot; false when it is there already. */
function place(slots: Uint32Array, bits: number, hash: number): boolean {
  const mask = slots.length - 1;
  for (let slot = start(hash, bits); ; slot = (slot + 1) & mask) {
    const value = slots[slot];
    if (value === hash) return false;
    if (value === 0) {
      slots[slot] = hash;
      return true;
    }
  }
}

/** The first slot to try: the hash's top bits after a multiplicative mix. */
function start(hash: number, bits: number): number {
  return Math.imul(hash, 0x9e3779b1) >>> (32 - bits);
}

/** MurmurHash3's 32-bit rounds, a UTF-16 unit a round (FNV-1a collided 35 times too often on ids that differ in one character); never 0, which marks an empty slot. */
function hashOf(id: string): number {
  let hash = 0;
  for (let index = 0; index < id.length; index++) {
    const unit = Math.imul(rotate(Math.imul(id.charCodeAt(index), 0xcc9e2d51), 15), 0x1b873593);
    hash = (Math.imul(rotate(hash ^ unit, 13), 5) + 0xe6546b64) | 0;
  }
  hash ^= id.length;
  hash = Math.imul(hash ^ (hash >>> 16), 0x85ebca6b);
  hash = Math.imul(hash ^ (hash >>> 13), 0xc2b2ae35);
  return (hash ^ (hash >>> 16)) >>> 0 || 1;
}

function rotate(value: number, bits: number): number {
  return (value << bits) | (value >>> (32 - bits));
}

function streamKey(businessId: string, stream: string): string {
  return `${businessId}\u0000${stream}`;
}
