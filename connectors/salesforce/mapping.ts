import type { SyncRecord } from '../../src/sink/sink.js';
import { jsonText } from '../../src/sink/json-text.js';
import { callDescription, callDirection, callKey, callSubject, durationSeconds, recordingLinks, fieldText as text } from '../crm/index.js';

/** Task field lengths (Object Reference: Task). */
const SUBJECT_MAX = 255;
const TEXT_MAX = 255;
const DESCRIPTION_MAX = 32_000;
/** A long text area holds at most 131,072 characters. */
const RECORD_FIELD_MAX = 131_072;

/** What the mapping writes besides the standard fields; from the config. */
export interface TaskMappingOptions {
  readonly externalIdField: string;
  readonly status: string;
  readonly recordingUrlField: string | null;
  readonly recordField: string | null;
  /** Set to false on every write with `onDelete: mark`, so a record that comes back is unmarked. */
  readonly deletedField: string | null;
  /** Record field → Task field. */
  readonly fields: Readonly<Record<string, string>>;
}

export type TaskFieldValue = string | number | boolean;

type MappedTask =
  | { readonly ok: true; readonly externalId: string; readonly fields: Readonly<Record<string, TaskFieldValue>> }
  | { readonly ok: false; readonly reason: string };

/**
 * One call or voicemail → the fields of a Salesforce Task (without `WhoId`, which the lookup
 * adds). Pure. `customer` is the call's other party as `connectors/crm` decides it (the number
 * that is not the business's own), which the Subject names; null falls back to the side the
 * direction points at. Fails, with the reason for the dead letter, for a record without a usable
 * `created_at` (a Task needs its `ActivityDate`). `archivedLink`, the archived recording's public
 * link (`<recordings.publicBaseUrl>/<key>`), goes to `recordingUrlField` instead of upstream's.
 */
export function mapRecordToTask(
  record: SyncRecord,
  stream: string,
  options: TaskMappingOptions,
  customer: string | null = null,
  archivedLink: string | null = null,
): MappedTask {
  const fields = record.fields;
  const createdAt = text(fields.created_at);
  if (createdAt === null) return { ok: false, reason: 'salesforce: created_at is missing; a Task needs its ActivityDate' };
  const when = new Date(createdAt);
  if (Number.isNaN(when.getTime()))
    return { ok: false, reason: `salesforce: created_at ${JSON.stringify(createdAt)} is not a date; a Task needs its ActivityDate` };
  const voicemail = stream === 'voicemails';
  const direction = callDirection(stream, fields);
  const status = text(fields.status);
  const task: Record<string, TaskFieldValue> = {
    TaskSubtype: 'Call',
    Subject: cut(callSubject(stream, direction, customer, text(fields.from_number), text(fields.to_number), 'with'), SUBJECT_MAX),
    Status: options.status,
    ActivityDate: when.toISOString().slice(0, 10),
    CallObject: cut(record.id, TEXT_MAX),
  };
  if (direction !== null) task.CallType = CALL_TYPE[direction];
  const duration = durationSeconds(fields.duration_seconds);
  if (duration !== null) task.CallDurationInSeconds = Math.round(duration);
  const disposition = voicemail ? 'Left voicemail' : callDisposition(status);
  if (disposition !== null) task.CallDisposition = disposition;
  const description = callDescription(text(fields.transcription_summary), text(fields.transcription_text));
  if (description !== null) task.Description = cut(description, DESCRIPTION_MAX);
  const recording = recordingLinks(stream, fields, archivedLink)[0];
  if (options.recordingUrlField !== null && recording !== undefined) task[options.recordingUrlField] = cut(recording, TEXT_MAX);
  for (const [column, field] of Object.entries(options.fields)) {
    const value = fields[column];
    if (value !== null && value !== undefined) task[field] = value;
  }
  if (options.deletedField !== null) task[options.deletedField] = false;
  if (options.recordField !== null) {
    const kept = jsonText({ source: record.source, fields: record.fields, raw: record.raw });
    // A record too long for the field is still synced; only its copy is left out.
    if (kept.length <= RECORD_FIELD_MAX) task[options.recordField] = kept;
  }
  const externalId = callKey(record.businessId, stream, record.id);
  task[options.externalIdField] = externalId;
  return { ok: true, externalId, fields: task };
}

/** `CallType` of each direction. */
const CALL_TYPE = { inbound: 'Inbound', outbound: 'Outbound' } as const;

/**
 * `CallDisposition` (free text, 255) for an upstream call status; unknown statuses are written
 * as they came, so nothing a person could read is lost.
 */
function callDisposition(status: string | null): string | null {
  if (status === null) return null;
  const known: Readonly<Record<string, string>> = {
    completed: 'Completed',
    busy: 'Busy',
    'no-answer': 'No answer',
    no_answer: 'No answer',
    missed: 'Missed',
    failed: 'Failed',
    canceled: 'Canceled',
    cancelled: 'Canceled',
  };
  return known[status.trim().toLowerCase()] ?? cut(status, TEXT_MAX);
}

function cut(value: string, max: number): string {
  return value.length <= max ? value : value.slice(0, max);
}
