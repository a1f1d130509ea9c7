import type { NormalizeContext } from '../../normalize/index.js';
import type { Json, JsonObject } from '../../sink/sink.js';
import type { OrderSetting, StreamDescriptor } from '../streams/stream-descriptor.js';
import type { RequestRules, UpstreamClient } from '../upstream/index.js';

/** How far back records may still change upstream (a transcription that appears after the call). */
export interface RevisitSettings {
  readonly windowMs: number;
  /** How often the window is read again; between times an incremental run stays one request. */
  readonly everyMs: number;
  readonly now: () => number;
}

/**
 * One page of a stream as upstream sent it: its records, raw (the engine normalizes them), and
 * where the stream stands once they are stored.
 */
export interface WalkPage {
  readonly records: readonly Json[];
  readonly position: JsonObject;
  /** Records upstream says exist in all, when it says. */
  readonly total?: number;
  /** Something an operator must see, e.g. a possible gap in a newest-first stream. */
  readonly warning?: string;
  /** The answer was not valid UTF-8: the records' strings hold U+FFFD where its bad bytes were. */
  readonly replacedUtf8?: boolean;
}

export type Query = Record<string, string | number | undefined>;

/** The `upstream` settings walks read (see the config reference). */
export interface WalkSettings {
  /** v1 page size (`limit` / `per_page`), at most 500. */
  readonly pageSize: number;
  /** First `limit` a v2 walk asks for. */
  readonly v2Limit: number;
  /** Largest `limit` a v2 walk widens to before it reports a gap. */
  readonly v2MaxLimit: number;
  /** Order of v1 lists unless a stream says otherwise (`upstream.order`). */
  readonly order: OrderSetting;
  /** How far ahead of now a record may be dated and still move a high-water mark (`upstream.maxFutureSkew`). */
  readonly maxFutureSkewMs: number;
}

/** The walk settings out of the config's `upstream` section. */
export function walkSettings(upstream: Omit<WalkSettings, 'maxFutureSkewMs'> & { readonly maxFutureSkew: number }): WalkSettings {
  const { pageSize, v2Limit, v2MaxLimit, order, maxFutureSkew } = upstream;
  return { pageSize, v2Limit, v2MaxLimit, order, maxFutureSkewMs: maxFutureSkew };
}

/** The part of the business's upstream client a walk asks: one page request. */
export type PageClient = Pick<UpstreamClient, 'get'>;

/** What a walker may use: the stream, the business's client with its run's rules, and the settings. */
export interface WalkContext extends WalkSettings {
  readonly descriptor: StreamDescriptor;
  /** Records created within this window may still change upstream and are read again; undefined: never. */
  readonly revisit?: RevisitSettings;
  /** The clock (tests); @defaultValue the revisit clock, else `Date.now`. */
  readonly now?: () => number;
  /** Every page of the walk is one request through it, under `rules` (budget, retries, the stop). */
  readonly client: PageClient;
  readonly rules: RequestRules;
  /** What the records' keys are read with (`descriptor.keys.createdAt`: the v2 time zone). */
  readonly normalizeContext: NormalizeContext;
  warn(message: string): void;
}

/** Walks a stream from a stored position (undefined on first sync), one stored page at a time. */
export type Walker = (context: WalkContext, position: JsonObject | undefined) => AsyncGenerator<WalkPage>;

/** Now, by the context's clock. */
export function nowOf(context: WalkContext): number {
  return context.now?.() ?? context.revisit?.now() ?? Date.now();
}
