import { Agent, request } from 'undici';
import type { UpstreamInfo } from './bench-config.js';

/** The v1 calls payload as the baseline reads it: no validation, no normalization. */
export interface RawCall {
  readonly id: string;
  readonly to_number?: string | null;
  readonly from_number?: string | null;
  readonly direction?: string | null;
  readonly recording_url?: string | null;
  readonly transcription_text?: string | null;
  readonly created_at?: string | null;
  readonly duration_seconds?: number | null;
  readonly status?: string | null;
  readonly updated_at?: string | null;
  readonly tracking_number_id?: string | null;
}

interface CallsPage {
  readonly data: { readonly calls: RawCall[]; readonly has_more: boolean; readonly next_cursor?: string | null };
}

/** What a raw baseline reads: one business's v1 calls, `pageSize` a page. */
export interface RawSource {
  readonly baseUrl: string;
  readonly apiKey: string;
  /** Stored as `business_id`, as the connectors store the configured business name. */
  readonly businessId: string;
  readonly pageSize: number;
}

/** The first business of `upstream` (the one the benches sync), read `pageSize` calls a page. */
export function firstBusiness(upstream: UpstreamInfo, pageSize: number): RawSource {
  const business = upstream.businesses[0];
  if (business === undefined) throw new Error('the upstream has no business');
  return { baseUrl: upstream.baseUrl, apiKey: business.apiKey, businessId: business.name, pageSize };
}

/**
 * The raw baseline's read side: undici request + JSON.parse over the same cursor pages the
 * engine walks, one page at a time, and the caller's `store` of each page awaited before the next.
 */
export async function rawWalk(source: RawSource, store: (calls: RawCall[]) => Promise<void> | void): Promise<number> {
  const { baseUrl, apiKey, pageSize } = source;
  const agent = new Agent();
  let records = 0;
  let cursor = '';
  try {
    for (;;) {
      const query = cursor === '' ? `limit=${pageSize}` : `limit=${pageSize}&cursor=${encodeURIComponent(cursor)}`;
      const res = await request(`${baseUrl}/api/v1/calls?${query}`, { headers: { authorization: `Bearer ${apiKey}` }, dispatcher: agent });
      if (res.statusCode !== 200) throw new Error(`baseline walk: HTTP ${res.statusCode}`);
      const page = JSON.parse(await res.body.text()) as CallsPage;
      await store(page.data.calls);
      records += page.data.calls.length;
      if (!page.data.has_more || page.data.next_cursor == null) return records;
      cursor = page.data.next_cursor;
    }
  } finally {
    await agent.close();
  }
}

/** The calls table's columns as the connectors write them (the order of {@link rawRow}); `deleted_at` stays null. */
export const RAW_COLUMNS = [
  'business_id',
  'id',
  'source',
  'to_number',
  'from_number',
  'direction',
  'recording_url',
  'transcription_text',
  'created_at',
  'raw',
  'synced_at',
  'duration_seconds',
  'status',
  'updated_at',
  'tracking_number_id',
] as const;

/** The values both baselines store, in {@link RAW_COLUMNS} order, with the same `raw` text the sinks keep. */
export function rawRow(businessId: string, call: RawCall, now: string): (string | number | null)[] {
  return [
    businessId,
    call.id,
    'v1',
    call.to_number ?? null,
    call.from_number ?? null,
    call.direction ?? null,
    call.recording_url ?? null,
    call.transcription_text === '' ? null : (call.transcription_text ?? null),
    call.created_at ?? null,
    JSON.stringify(call),
    now,
    call.duration_seconds ?? null,
    call.status ?? null,
    call.updated_at ?? null,
    call.tracking_number_id ?? null,
  ];
}
