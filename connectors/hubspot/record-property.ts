import type { SyncRecord } from '../../src/sink/sink.js';
import { isHubSpotError } from './errors.js';
import type { HubSpotHttp } from './client.js';

/** HubSpot's limit for a string property value. */
const MAX_VALUE_CHARS = 65_536;

/** The record as JSON for the optional record property; truncated raw payloads keep the value under HubSpot's limit. */
export function recordPropertyValue(record: SyncRecord): string {
  const full = JSON.stringify({ source: record.source, fields: record.fields, raw: record.raw });
  if (full.length <= MAX_VALUE_CHARS) return full;
  return JSON.stringify({ source: record.source, fields: record.fields, raw: null, rawTruncated: true });
}

/** Creates the textarea property that keeps records, when missing. */
export async function ensureRecordProperty(http: HubSpotHttp, name: string): Promise<void> {
  try {
    await http.send('GET', `/crm/v3/properties/calls/${encodeURIComponent(name)}`);
    return;
  } catch (error) {
    if (!isHubSpotError(error) || error.kind !== 'not_found') throw error;
  }
  try {
    await http.send('POST', '/crm/v3/properties/calls', {
      name,
      label: 'callsync record',
      description: 'The call-tracking record as synced by callsync (JSON).',
      type: 'string',
      fieldType: 'textarea',
      groupName: 'callinformation',
    });
  } catch (error) {
    if (!isHubSpotError(error) || error.kind !== 'conflict') throw error;
  }
}
