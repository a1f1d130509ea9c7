import type { ColumnValue, SyncRecord } from '../../src/sink/sink.js';

/**
 * What every CRM connector reads of a call or voicemail the same way: which streams become call
 * activities, the direction, the duration, the subject line (naming the other party that
 * `other-party.ts` finds), the description and
 * the key that finds the activity again. Each connector spells the values its service's way
 * (`INBOUND` for HubSpot, `Inbound` for Salesforce; milliseconds or seconds); what they mean is
 * decided here once. Plain functions over primitives: nothing is allocated per record besides
 * the strings they return.
 */

/** Streams written as call activities; the others are kept by the state store alone (the `numbers` stream feeds the other-party rule). */
export const CALL_STREAMS: ReadonlySet<string> = new Set(['calls', 'v2_calls', 'voicemails']);

/** A call's direction; null when the record does not say (a voicemail is inbound). */
type CallDirection = 'inbound' | 'outbound' | null;

/** The direction of a record of `stream`: a voicemail is inbound; a call, its `direction` when that is `inbound` or `outbound`. */
export function callDirection(stream: string, fields: SyncRecord['fields']): CallDirection {
  if (stream === 'voicemails') return 'inbound';
  const direction = fields.direction;
  return direction === 'inbound' || direction === 'outbound' ? direction : null;
}

/**
 * A duration in seconds as the record carries it (a number or a numeric string), not rounded;
 * null when absent, negative or not a number.
 */
export function durationSeconds(value: ColumnValue | undefined): number | null {
  const number = typeof value === 'string' && /^\d+(\.\d+)?$/.test(value.trim()) ? Number(value) : value;
  return typeof number === 'number' && Number.isFinite(number) && number >= 0 ? number : null;
}

/**
 * The subject (HubSpot's title) of a call: it names the customer, the other party when known,
 * else the number on the side the direction points at (`to` outbound, `from` otherwise).
 * `undirected` is the word before the number of a call without a direction (HubSpot says
 * `Call from`, Salesforce `Call with`).
 */
export function callSubject(
  stream: string,
  direction: CallDirection,
  party: string | null,
  from: string | null,
  to: string | null,
  undirected: 'from' | 'with',
): string {
  const customer = party ?? (direction === 'outbound' ? to : from);
  if (stream === 'voicemails') return customer === null ? 'Voicemail' : `Voicemail from ${customer}`;
  if (direction === 'outbound') return customer === null ? 'Outbound call' : `Outbound call to ${customer}`;
  if (direction === 'inbound') return customer === null ? 'Inbound call' : `Inbound call from ${customer}`;
  return customer === null ? 'Call' : `Call ${undirected} ${customer}`;
}

/** The note of a call: its transcription's summary and text, each labelled; null when it has neither. */
export function callDescription(summary: string | null, transcription: string | null): string | null {
  if (summary === null) return transcription === null ? null : `Transcription: ${transcription}`;
  return transcription === null ? `Summary: ${summary}` : `Summary: ${summary}\n\nTranscription: ${transcription}`;
}

/** The key a CRM activity is found again by (HubSpot's unique property, Salesforce's external id): `${businessId}:${stream}:${id}`. */
export function callKey(businessId: string, stream: string, id: string): string {
  return `${businessId}:${stream}:${id}`;
}

/**
 * The recording links of a call, best first: the archived copy's (`<recordings.publicBaseUrl>/<key>`),
 * then upstream's `recording_url`, then a voicemail's `api_recording_url`. A connector takes the
 * first its service can play (HubSpot: the first https one), so the archived link wins whenever
 * it is usable and upstream's is the fallback.
 */
export function recordingLinks(stream: string, fields: SyncRecord['fields'], archived: string | null): string[] {
  const links = [archived, fieldText(fields.recording_url), stream === 'voicemails' ? fieldText(fields.api_recording_url) : null];
  return links.filter((link) => link !== null);
}

/** A field as trimmed text; null when absent or blank. */
export function fieldText(value: ColumnValue | undefined): string | null {
  if (value === null || value === undefined) return null;
  const text = String(value).trim();
  return text === '' ? null : text;
}
