import type { NormalizeContext } from '../normalize/index.js';
import type { JsonObject } from '../base/json.js';
import type { StreamDescriptor } from './streams/stream-descriptor.js';
import type { QueryParams, RequestRules } from './upstream/index.js';
import { walkerFor, type PageClient, type RevisitSettings, type WalkPage, type WalkSettings } from './walkers/index.js';

/**
 * One stream of one business as the engine reads it: the stream's descriptor, its walker and the
 * business's upstream client, bound by a composition root (backfill, the `run` job, reconcile).
 * It yields raw pages with their positions; the engine normalizes them and hands them to the sink.
 */
export interface Source {
  readonly descriptor: StreamDescriptor;
  /**
   * The stream's pages from `position` (undefined on a first sync), one stored page at a time:
   * each page's request goes through the business's client (budget, retries, auth), and the walk's
   * progress guards have passed it before it is yielded.
   */
  pages(position: JsonObject | undefined, options: PagesOptions): AsyncGenerator<WalkPage>;
  /** One request of the stream's endpoint with `query` (reconciliation's count): its payload. */
  fetch(query: QueryParams): Promise<JsonObject>;
}

interface PagesOptions {
  /** Something the operator should know that does not stop the walk (a cursor rejected, a page cap). */
  readonly warn: (message: string) => void;
  /** `false`: a whole walk of the list that reads nothing again (reconciliation's repair). @defaultValue the source's revisit */
  readonly revisit?: false;
}

interface SourceOptions {
  readonly descriptor: StreamDescriptor;
  readonly client: PageClient;
  /** What every request of this run follows: the business's budget, the retry policy, the stop and the watcher. */
  readonly rules: RequestRules;
  readonly paging: WalkSettings;
  /** Re-read records created within a window, for late upstream changes; undefined: never. */
  readonly revisit?: RevisitSettings;
  /** The business's normalize settings, which the records' keys are read with (the v2 time zone). */
  readonly normalizeContext: NormalizeContext;
}

/** The source of one stream of one business. */
export function streamSource(options: SourceOptions): Source {
  const { descriptor, client, rules, paging, normalizeContext } = options;
  return {
    descriptor,
    pages(position, { warn, revisit: walkRevisit }) {
      const revisit = walkRevisit === false ? undefined : options.revisit;
      return walkerFor(descriptor.paging, revisit)({ descriptor, ...paging, revisit, client, rules, normalizeContext, warn }, position);
    },
    async fetch(query) {
      return (await client.get(descriptor.api, descriptor.path, query, rules)).payload;
    },
  };
}
