import type { CallContext, CallOverride } from './call-factory.js';
import { makeCall, parseTimeOrderedId } from './call-factory.js';
import type { CallModel } from './models.js';
import { historyTime } from './models.js';
import { mix, Rng } from './prng.js';

/** Above this many calls the serialized JSON is not kept: 1,000,000 strings would cost ~400 MB. */
const JSON_CACHE_LIMIT = 250_000;
const MAX_SEQ = 0xfff;

/**
 * Append-only, compact storage of one business's calls: per call only its creation second and
 * per-second sequence (6 bytes); every other field is derived from the seed when asked.
 * Index order is (created_at, id) order, so positions are stable while calls arrive. A call
 * deleted upstream keeps its slot (indexes stay stable) and is skipped by every list.
 */
export class CallStore {
  readonly #ctx: CallContext;
  readonly #render: (call: CallModel) => string;
  #created: Uint32Array;
  #seq: Uint16Array;
  #length = 0;
  readonly #overrides = new Map<number, CallOverride>();
  readonly #json: (string | undefined)[] = [];
  /** Deleted slots, ascending; few, so rank arithmetic is a binary search over them. */
  readonly #deleted: number[] = [];
  readonly #deletedSet = new Set<number>();

  constructor(ctx: CallContext, render: (call: CallModel) => string) {
    this.#ctx = ctx;
    this.#render = render;
    const n = ctx.initialCount;
    this.#created = new Uint32Array(Math.max(16, n + 1024));
    this.#seq = new Uint16Array(this.#created.length);
    const rng = new Rng(mix(ctx.businessSeed, 0x7173));
    for (let i = 0; i < n; i++) this.#push(historyTime(i, n, rng.next()));
  }

  /** Slots ever used, deleted ones included: every valid index is below it. */
  get length(): number {
    return this.#length;
  }

  /** Calls the service still lists. */
  get liveCount(): number {
    return this.#length - this.#deleted.length;
  }

  isDeleted(index: number): boolean {
    return this.#deletedSet.has(index);
  }

  /** Deleted slots below `index`. */
  deletedBelow(index: number): number {
    let lo = 0;
    let hi = this.#deleted.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if ((this.#deleted[mid] ?? 0) < index) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  /** Slot of the live call with ascending rank `rank` (0 = oldest); `length` when there is none. */
  indexAtRank(rank: number): number {
    if (rank >= this.liveCount) return this.#length;
    // The least fixed point of s = rank + (deleted slots ≤ s), reached from below.
    let s = rank;
    for (;;) {
      const next = rank + this.deletedBelow(s + 1);
      if (next === s) return s;
      s = next;
    }
  }

  /** Whether the service lists a call with this id. */
  has(id: string): boolean {
    const index = this.indexOf(id);
    return index >= 0 && !this.#deletedSet.has(index);
  }

  /** Removes the call from every list (the service deleted it); false when unknown or already gone. */
  delete(id: string): boolean {
    const index = this.indexOf(id);
    if (index < 0 || this.#deletedSet.has(index)) return false;
    this.#deletedSet.add(index);
    this.#deleted.splice(this.deletedBelow(index), 0, index);
    return true;
  }

  /** Adds `count` calls created at `nowSec` or later than the last call, whichever is later. */
  append(count: number, nowSec: number): void {
    for (let i = 0; i < count; i++) this.#push(nowSec);
  }

  model(index: number): CallModel {
    return makeCall(this.#ctx, index, this.#created[index] ?? 0, this.#seq[index] ?? 0, this.#overrides.get(index));
  }

  /** The v1 JSON of call `index`, serialized once while the store is small enough to cache. */
  json(index: number): string {
    const cached = this.#json[index];
    if (cached !== undefined) return cached;
    const text = this.#render(this.model(index));
    if (this.#length <= JSON_CACHE_LIMIT) this.#json[index] = text;
    return text;
  }

  /** Index of the call with this id, or -1. */
  indexOf(id: string): number {
    const key = parseTimeOrderedId(id);
    if (key === undefined) return -1;
    let lo = 0;
    let hi = this.#length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if ((this.#created[mid] ?? 0) < key.createdAtSec) lo = mid + 1;
      else hi = mid;
    }
    for (let i = lo; i < this.#length && this.#created[i] === key.createdAtSec; i++) {
      if (this.#seq[i] === key.seq) return this.model(i).id === id ? i : -1;
    }
    return -1;
  }

  /** Replaces the transcription of call `id`; false when there is no such call. */
  updateTranscription(id: string, text: string, nowSec: number): boolean {
    const index = this.indexOf(id);
    if (index < 0) return false;
    this.override(index, { transcription: text, updatedAtSec: nowSec });
    return true;
  }

  /** Changes fields of call `index` from what the seed says; earlier changes stay unless replaced. */
  override(index: number, patch: CallOverride): void {
    this.#overrides.set(index, { ...this.#overrides.get(index), ...patch });
    this.#json[index] = undefined;
  }

  #push(atSec: number): void {
    if (this.#length === this.#created.length) this.#grow();
    const last = this.#length - 1;
    const lastAt = last >= 0 ? (this.#created[last] ?? 0) : 0;
    const lastSeq = last >= 0 ? (this.#seq[last] ?? 0) : 0;
    let at = Math.max(atSec, lastAt);
    let seq = at === lastAt && last >= 0 ? lastSeq + 1 : 0;
    if (seq > MAX_SEQ) {
      at = lastAt + 1;
      seq = 0;
    }
    this.#created[this.#length] = at;
    this.#seq[this.#length] = seq;
    this.#length++;
  }

  #grow(): void {
    const created = new Uint32Array(this.#created.length * 2);
    created.set(this.#created);
    const seq = new Uint16Array(created.length);
    seq.set(this.#seq);
    this.#created = created;
    this.#seq = seq;
  }
}
