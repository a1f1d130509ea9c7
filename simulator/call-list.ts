import type { CallStore } from './call-store.js';

/** Which end of the v1 lists comes first; the spec does not say (v2 is newest first). */
export type ListOrder = 'oldest' | 'newest';

/** One cursor page: store slots in serving order, where the next page starts, and whether it has calls. */
export interface CursorSlice {
  slots: number[];
  next: number;
  hasMore: boolean;
}

/**
 * The live calls of one store as a v1 list in one order. Offsets count live calls from the head
 * of the list, so with newest first an arrival shifts every offset by one. A cursor position is
 * a store slot boundary, never a rank: oldest first it is the next slot to serve, newest first
 * the slot below which serving continues; both stay put while calls arrive or are deleted.
 */
export class CallList {
  readonly #store: CallStore;
  readonly #order: ListOrder;
  readonly #shown: ((slot: number) => boolean) | undefined;

  /** @param shown - when given, only the slots it accepts are listed (`hostile.listShare`); lists are then walked slot by slot. */
  constructor(store: CallStore, order: ListOrder, shown?: (slot: number) => boolean) {
    this.#store = store;
    this.#order = order;
    this.#shown = shown;
  }

  get total(): number {
    if (this.#shown === undefined) return this.#store.liveCount;
    let count = 0;
    for (let i = 0; i < this.#store.length; i++) if (this.#listed(i)) count++;
    return count;
  }

  /** Where a walk without a cursor starts. */
  get start(): number {
    return this.#order === 'oldest' ? 0 : this.#store.length;
  }

  /** A cursor position this list can have issued. */
  validPosition(position: number): boolean {
    return position <= this.#store.length;
  }

  /** Up to `limit` live slots starting `offset` calls from the head. */
  atOffset(offset: number, limit: number): number[] {
    if (this.#shown !== undefined) {
      const listed: number[] = [];
      for (let i = 0; i < this.#store.length; i++) if (this.#listed(i)) listed.push(i);
      if (this.#order === 'newest') listed.reverse();
      return listed.slice(offset, offset + limit);
    }
    const total = this.total;
    if (offset >= total) return [];
    if (this.#order === 'oldest') return this.#collect(this.#store.indexAtRank(offset), limit).slots;
    return this.#collect(this.#store.indexAtRank(total - 1 - offset) + 1, limit).slots;
  }

  /** Up to `limit` live slots from a cursor position. */
  fromCursor(position: number, limit: number): CursorSlice {
    const { slots, next } = this.#collect(position, limit);
    const store = this.#store;
    if (this.#shown !== undefined) return { slots, next, hasMore: this.#collect(next, 1).slots.length > 0 };
    const liveBelow = next - store.deletedBelow(next);
    const hasMore = this.#order === 'oldest' ? store.liveCount - liveBelow > 0 : liveBelow > 0;
    return { slots, next, hasMore };
  }

  /** Walks from a boundary in serving order, skipping deleted slots. */
  #collect(boundary: number, limit: number): { slots: number[]; next: number } {
    const store = this.#store;
    const slots: number[] = [];
    if (this.#order === 'oldest') {
      let i = boundary;
      for (; i < store.length && slots.length < limit; i++) if (this.#listed(i)) slots.push(i);
      return { slots, next: i };
    }
    let i = boundary - 1;
    for (; i >= 0 && slots.length < limit; i--) if (this.#listed(i)) slots.push(i);
    return { slots, next: i + 1 };
  }

  #listed(slot: number): boolean {
    return !this.#store.isDeleted(slot) && (this.#shown?.(slot) ?? true);
  }
}
