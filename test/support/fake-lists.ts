import type { RecordKeys } from '../../src/normalize/index.js';
import type { JsonObject } from '../../src/sink/sink.js';
import type { PagingMode, StreamDescriptor } from '../../src/source/streams/stream-descriptor.js';
import type { Query, WalkContext, WalkPage, Walker } from '../../src/source/walkers/walker.js';

/** Test support for the walker unit tests (excluded from the build as `*.unit.ts`). */

export type Raw = { id: string; created_at: string };

const BASE = Date.parse('2025-01-01T00:00:00Z');

/** Records one second apart, `r{from}`… */
export function records(n: number, from = 0): Raw[] {
  return Array.from({ length: n }, (_, i) => ({ id: `r${from + i}`, created_at: new Date(BASE + (from + i) * 1000).toISOString().replace('.000', '') }));
}

export interface Misbehaviour {
  /** Returns at most this many records whatever `limit`/`per_page` asks. */
  cap?: number;
  ignoreOffset?: boolean;
  stuckCursor?: boolean;
  cyclingCursor?: boolean;
  emptyPagesWithMore?: boolean;
  /** Every cursor is a new string (`c{boundary}.{n}`), as opaque cursors with a timestamp are. */
  mintCursors?: boolean;
  /** The last page carries no `next_cursor` (the spec does not say it does). */
  noCursorOnLastPage?: boolean;
  total?: number;
  /** The next answer alone holds only this many records (more to come, the cursor right after them); cleared once served. */
  shortOnce?: number;
}

/**
 * A v1 list served oldest or newest first by cursor, offset and page. Cursors are boundaries in
 * the append-only record array (like the simulator's), so they stay put while records arrive.
 */
export class FakeList {
  readonly all: Raw[];
  readonly order: 'oldest' | 'newest';
  bad: Misbehaviour = {};
  #cycle: [number, number] | undefined;
  #minted = 0;

  constructor(count: number, order: 'oldest' | 'newest') {
    this.all = records(count);
    this.order = order;
  }

  /** New records arrive, each newer than every record before. */
  add(count: number): void {
    this.all.push(...records(count, this.all.length));
  }

  #listed(): Raw[] {
    return this.order === 'oldest' ? this.all : [...this.all].reverse();
  }

  serve = (query: Query): JsonObject => {
    const asked = Number(query.limit ?? query.per_page);
    const size = Math.min(asked, this.bad.cap ?? asked);
    const served = Math.min(size, this.bad.shortOnce ?? size);
    delete this.bad.shortOnce;
    const total = this.bad.total ?? this.all.length;
    if ('cursor' in query) return this.#cursorPage(query.cursor === undefined ? undefined : Number.parseInt(String(query.cursor).slice(1), 10), served, total);
    const start = this.bad.ignoreOffset ? 0 : query.page !== undefined ? (Number(query.page) - 1) * size : Number(query.offset ?? 0);
    const slice = this.#listed().slice(start, start + served);
    const more = start + slice.length < this.all.length;
    return { calls: this.bad.emptyPagesWithMore && start > 0 ? [] : slice, total, has_more: more || this.bad.emptyPagesWithMore === true };
  };

  #cursorPage(boundary: number | undefined, size: number, total: number): JsonObject {
    const length = this.all.length;
    let slice: Raw[];
    let next: number;
    if (this.order === 'oldest') {
      const from = boundary ?? 0;
      slice = this.all.slice(from, from + size);
      next = from + slice.length;
    } else {
      const from = boundary ?? length;
      slice = this.all.slice(Math.max(0, from - size), from).reverse();
      next = from - slice.length;
    }
    const more = this.order === 'oldest' ? next < length : next > 0;
    if (this.bad.stuckCursor) next = boundary ?? next;
    // Cycling: the cursor of page 3 leads back to page 2 (both real pages).
    if (this.bad.cyclingCursor && boundary !== undefined) {
      this.#cycle ??= [boundary, next];
      if (boundary === this.#cycle[1]) next = this.#cycle[0];
    }
    if (this.bad.emptyPagesWithMore && boundary !== undefined) return { calls: [], total, has_more: true, next_cursor: `c${next + 1}` };
    const cursor = this.bad.mintCursors ? `c${next}.${(this.#minted += 1)}` : `c${next}`;
    const hasMore = more || this.bad.stuckCursor === true || this.bad.cyclingCursor === true;
    return { calls: slice, total, has_more: hasMore, ...(hasMore || this.bad.noCursorOnLastPage !== true ? { next_cursor: cursor } : {}) };
  }
}

/** What the fake records say of themselves: `id` and `created_at` as they are. */
const RAW_KEYS: RecordKeys = {
  id: (raw) => (raw as Raw).id,
  createdAt: (raw) => (raw as Raw).created_at,
};

export function descriptorFor(paging: PagingMode, keys: RecordKeys = RAW_KEYS): StreamDescriptor {
  return { name: 'calls', api: 'v1', path: '/calls', recordsKey: 'calls', paging, keys } as StreamDescriptor;
}

export function context(fetch: (query: Query) => JsonObject, options: Partial<WalkContext> = {}) {
  const queries: Query[] = [];
  const warnings: string[] = [];
  const walkContext: WalkContext = {
    descriptor: descriptorFor('cursor'),
    pageSize: 2,
    v2Limit: 2,
    v2MaxLimit: 8,
    order: 'auto',
    maxFutureSkewMs: 3_600_000,
    // The business's client in miniature: every page request answered by `fetch`, whatever the rules.
    client: {
      get: (_api, _path, query = {}) => {
        queries.push(query);
        return Promise.resolve({ status: 200, payload: fetch(query), replacedUtf8: false });
      },
    },
    rules: {},
    normalizeContext: { recordingsBaseUrl: 'https://calls.example.com', v2TimeZone: 'UTC' },
    warn: (message) => warnings.push(message),
    ...options,
  };
  return { walkContext, queries, warnings };
}

export async function collect(pages: AsyncGenerator<WalkPage>, limit = Number.POSITIVE_INFINITY): Promise<WalkPage[]> {
  const out: WalkPage[] = [];
  if (limit <= 0) return out;
  for await (const page of pages) {
    out.push(page);
    if (out.length >= limit) break;
  }
  return out;
}

export const ids = (pages: readonly WalkPage[]): string[] => pages.flatMap((page) => page.records.map((raw) => (raw as Raw).id));

/** A sink in miniature: the ids stored and the position stored with the last page. */
export class Mirror {
  readonly stored = new Set<string>();
  position: JsonObject | undefined;
  requests = 0;

  /** One run of `walker`; `pages` cuts it off after that many stored pages (a kill). */
  async run(walker: Walker, list: FakeList, options: Partial<WalkContext> = {}, pages?: number): Promise<{ queries: Query[]; warnings: string[] }> {
    const walk = context(list.serve, options);
    let stored = 0;
    try {
      // Like the engine: each page is stored with its position as it comes.
      for await (const page of walker(walk.walkContext, this.position)) {
        for (const id of ids([page])) this.stored.add(id);
        this.position = page.position;
        stored += 1;
        if (pages !== undefined && stored >= pages) break;
      }
    } finally {
      this.requests += walk.queries.length;
    }
    return { queries: walk.queries, warnings: walk.warnings };
  }

  missing(list: FakeList): string[] {
    return list.all.map((record) => record.id).filter((id) => !this.stored.has(id));
  }
}
