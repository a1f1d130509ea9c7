import type { ColumnValue, Json, SyncRecord } from '../../src/sink/sink.js';
import {
  CALL_STREAMS,
  callDescription,
  callDirection,
  callKey,
  callSubject,
  durationSeconds,
  fieldText as text,
  otherParty,
  recordingLinks,
  type PartyBasis,
} from '../crm/index.js';
import type { HubSpotMappingOverrides } from './config.js';

/** HubSpot's predefined "Left voicemail" call outcome. */
export const LEFT_VOICEMAIL_DISPOSITION = 'b2cf5968-551e-4856-9783-52b3da59a7d0';

/** HubSpot property written for each logical value; `null` leaves the value out. */
export interface CallPropertyMapping {
  readonly timestamp: string;
  readonly direction: string | null;
  readonly durationMs: string | null;
  readonly fromNumber: string | null;
  readonly toNumber: string | null;
  readonly recordingUrl: string | null;
  readonly body: string | null;
  readonly title: string | null;
  readonly status: string | null;
  readonly disposition: string | null;
  readonly voicemailDisposition: string;
  /** Record fields (declared columns, `columns:` in the config) copied as text to the named properties. */
  readonly fields: Readonly<Record<string, string>>;
}

export const defaultCallMapping: CallPropertyMapping = Object.freeze({
  timestamp: 'hs_timestamp',
  direction: 'hs_call_direction',
  durationMs: 'hs_call_duration',
  fromNumber: 'hs_call_from_number',
  toNumber: 'hs_call_to_number',
  recordingUrl: 'hs_call_recording_url',
  body: 'hs_call_body',
  title: 'hs_call_title',
  status: 'hs_call_status',
  disposition: 'hs_call_disposition',
  voicemailDisposition: LEFT_VOICEMAIL_DISPOSITION,
  fields: {},
});

/** The default mapping with the config's overrides applied (keys left out keep their default). */
export function resolveMapping(overrides: HubSpotMappingOverrides | undefined): CallPropertyMapping {
  const defined = Object.entries(overrides ?? {}).filter(([, value]) => value !== undefined);
  return Object.freeze({ ...defaultCallMapping, ...Object.fromEntries(defined) });
}

type MappedCall =
  | {
      readonly ok: true;
      /** Value of the unique property: `${businessId}:${stream}:${id}`. */
      readonly uniqueValue: string;
      readonly properties: Readonly<Record<string, string>>;
      /** The customer's number (E.164) by the CRM rule (`connectors/crm/other-party.ts`), for contact matching. */
      readonly contactNumber: string | null;
      /** How the customer's number was decided; `direction` is counted and shown. */
      readonly partyBasis: PartyBasis;
    }
  | { readonly ok: false; readonly reason: string };

/**
 * One SyncRecord → the properties of a HubSpot Calls engagement, and the customer's number: the
 * one of `from_number`/`to_number` that `isTracked` says is not the business's own (the direction
 * decides only when both or neither are). Pure: no I/O, no clock. Fails (with a reason for the
 * dead letter) for unsupported streams and records without `created_at`.
 * @param isTracked - E.164 → whether it is one of the business's tracked numbers. @defaultValue none is
 * @param archivedLink - the archived recording's public link (`<recordings.publicBaseUrl>/<key>`),
 * sent instead of upstream's when it is https. @defaultValue null: upstream's link
 */
export function mapRecordToCall(
  record: SyncRecord,
  stream: string,
  uniqueProperty: string,
  mapping: CallPropertyMapping,
  isTracked: (e164: string) => boolean = () => false,
  archivedLink: string | null = null,
): MappedCall {
  if (!CALL_STREAMS.has(stream)) {
    return { ok: false, reason: `hubspot: stream "${stream}" is not synced to HubSpot (supported: ${[...CALL_STREAMS].join(', ')})` };
  }
  const fields = record.fields;
  const createdAt = text(fields.created_at);
  if (createdAt === null) return { ok: false, reason: 'hubspot: created_at is missing; hs_timestamp is required' };

  const voicemail = stream === 'voicemails';
  const direction = callDirection(stream, fields);
  const from = text(fields.from_number);
  const to = text(fields.to_number);
  const party = otherParty({ from, to, direction }, isTracked);
  const values: Record<string, string | null> = {
    timestamp: createdAt,
    direction: direction === null ? null : DIRECTION[direction],
    durationMs: durationMs(voicemail ? fields.duration_seconds : (fields.duration_seconds ?? rawNumber(record.raw, 'duration_seconds'))),
    fromNumber: from,
    toNumber: to,
    recordingUrl: recordingLinks(stream, fields, archivedLink).find(isHttpsUrl) ?? null,
    body: callDescription(text(fields.transcription_summary), text(fields.transcription_text)),
    title: callSubject(stream, direction, party.number, from, to, 'from'),
    status: hubspotCallStatus(text(fields.status) ?? rawText(record.raw, 'status') ?? rawText(record.raw, 'call_status')),
    disposition: voicemail ? mapping.voicemailDisposition : null,
  };
  const properties: Record<string, string> = {};
  for (const [key, value] of Object.entries(values)) {
    const property = mapping[key as keyof Omit<CallPropertyMapping, 'voicemailDisposition' | 'fields'>];
    if (property !== null && value !== null) properties[property] = value;
  }
  for (const [field, property] of Object.entries(mapping.fields)) {
    const value = fields[field];
    if (value !== null && value !== undefined) properties[property] = String(value);
  }
  const uniqueValue = callKey(record.businessId, stream, record.id);
  properties[uniqueProperty] = uniqueValue;
  return { ok: true, uniqueValue, properties, contactNumber: party.number, partyBasis: party.basis };
}

/**
 * `hs_call_status` for an upstream call status; HubSpot refuses values outside its enumeration
 * (BUSY, CALLING_CRM_USER, CANCELED, COMPLETED, CONNECTING, FAILED, IN_PROGRESS, NO_ANSWER,
 * QUEUED, RINGING), so anything not in this table is left out rather than guessed.
 */
export const CALL_STATUS: ReadonlyMap<string, string> = new Map([
  ['completed', 'COMPLETED'],
  ['busy', 'BUSY'],
  ['no-answer', 'NO_ANSWER'],
  ['no_answer', 'NO_ANSWER'],
  ['missed', 'NO_ANSWER'],
  ['failed', 'FAILED'],
  ['canceled', 'CANCELED'],
  ['cancelled', 'CANCELED'],
]);

/** The mapped `hs_call_status`, or null (omitted) for an unknown or absent status. */
export function hubspotCallStatus(status: string | null): string | null {
  return status === null ? null : (CALL_STATUS.get(status.trim().toLowerCase()) ?? null);
}

/** `hs_call_direction` of each direction. */
const DIRECTION = { inbound: 'INBOUND', outbound: 'OUTBOUND' } as const;

/** `hs_call_duration` is in milliseconds. */
function durationMs(value: ColumnValue | undefined): string | null {
  const seconds = durationSeconds(value);
  return seconds === null ? null : String(Math.round(seconds * 1000));
}

/** v1 call fields are not in the specification; a numeric `duration_seconds` is used when an instance sends one. */
function rawNumber(raw: Json, key: string): ColumnValue {
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) return null;
  const value = raw[key];
  return typeof value === 'number' || typeof value === 'string' ? value : null;
}

function rawText(raw: Json, key: string): string | null {
  const value = rawNumber(raw, key);
  return typeof value === 'string' ? value : null;
}

// HubSpot plays recordings from its own UI, which only loads https sources.
function isHttpsUrl(url: string): boolean {
  return /^https:\/\/[^\s/]+/i.test(url);
}
