import type { CallModel, NumberModel, SmsModel, VoicemailModel } from './models.js';
import { mix } from './prng.js';
import { hms, isoFromUnixSeconds, v2Time } from './time-format.js';

/** How records look on the wire. v1 fields of calls and numbers are not in the spec: this is our shape. */
export interface RenderOptions {
  recordingsBaseUrl: string;
  /** Fraction of v2 phone fields rendered as bare JSON numbers. */
  v2NumbersAsNumbers: number;
  businessSeed: number;
  /** Serve one record of each v2 list with a uuid a double cannot tell from its predecessor's. */
  v2FractionalUuid: boolean;
}

/** Position (0 = oldest) in its v2 list of the record `v2FractionalUuid` renders with a fraction. */
const FRACTIONAL_UUID_INDEX = 16;

/**
 * The uuid as written in the JSON text. Upstream's uuid is declared a string and served as a
 * number; `100000016.0000000001` is a different record from `100000016` to the server, but
 * parses to the same double.
 */
export function v2UuidText(uuid: number, index: number, options: RenderOptions): string {
  return options.v2FractionalUuid && index === FRACTIONAL_UUID_INDEX ? `${uuid - 1}.0000000001` : String(uuid);
}

/** JSON text of a v2 record whose first key is `uuid`, the uuid written as `uuidText`. */
function v2Json(record: Record<string, unknown>, uuid: number, uuidText: string): string {
  const text = JSON.stringify(record);
  return uuidText === String(uuid) ? text : `{"uuid":${uuidText}${text.slice(text.indexOf(','))}`;
}

/** `depth` nested empty arrays, built without recursion. */
function nestedArrays(depth: number): unknown {
  let value: unknown[] = [];
  for (let i = 1; i < depth; i++) value = [value];
  return value;
}

export function callV1(call: CallModel, options: RenderOptions): Record<string, unknown> {
  const custom = call.customDataDepth === undefined ? {} : { custom_data: nestedArrays(call.customDataDepth) };
  return {
    id: call.id,
    to_number: call.toNumber,
    from_number: call.fromNumber,
    direction: call.direction,
    status: call.status,
    duration_seconds: call.durationSec,
    recording_url: call.recordingPath === null ? null : options.recordingsBaseUrl + call.recordingPath,
    transcription_text: call.transcription,
    created_at: isoFromUnixSeconds(call.createdAtSec),
    updated_at: isoFromUnixSeconds(call.updatedAtSec),
    tracking_number_id: call.trackingNumber.id,
    ...custom,
  };
}

function customJson(call: CallModel): string {
  const depth = call.customDataDepth;
  return depth === undefined ? '' : `,"custom_data":${'['.repeat(depth)}${']'.repeat(depth)}`;
}

/**
 * The same JSON as `JSON.stringify(callV1(call))`, built by hand: only the transcription can
 * need escaping, and skipping the intermediate object halves the cost of a cold page.
 */
export function callV1Json(call: CallModel, options: RenderOptions): string {
  const recording = call.recordingPath === null ? 'null' : JSON.stringify(options.recordingsBaseUrl + call.recordingPath);
  return (
    `{"id":"${call.id}","to_number":"${call.toNumber}","from_number":"${call.fromNumber}",` +
    `"direction":"${call.direction}","status":"${call.status}","duration_seconds":${call.durationSec},` +
    `"recording_url":${recording},"transcription_text":${JSON.stringify(call.transcription)},` +
    `"created_at":"${isoFromUnixSeconds(call.createdAtSec)}","updated_at":"${isoFromUnixSeconds(call.updatedAtSec)}",` +
    `"tracking_number_id":"${call.trackingNumber.id}"${customJson(call)}}`
  );
}

/** Deterministic per (record, field): the same field renders the same way on every request. */
function v2Phone(e164: string, uuid: number, field: number, options: RenderOptions): string | number {
  if (options.v2NumbersAsNumbers <= 0) return e164;
  const roll = mix(options.businessSeed, uuid, field) / 4294967296;
  return roll < options.v2NumbersAsNumbers ? Number(e164.slice(1)) : e164;
}

export function callV2(call: CallModel, options: RenderOptions): Record<string, unknown> {
  return {
    uuid: call.v2Uuid,
    call_to_number: v2Phone(call.toNumber, call.v2Uuid, 1, options),
    call_from_number: v2Phone(call.fromNumber, call.v2Uuid, 2, options),
    call_transcription_text: call.transcription,
    call_direction: call.direction,
    call_recording_url: call.recordingPath,
    call_created_at: v2Time(call.createdAtSec),
  };
}

export function callV2Json(call: CallModel, options: RenderOptions): string {
  return v2Json(callV2(call, options), call.v2Uuid, v2UuidText(call.v2Uuid, call.index, options));
}

export function voicemailV2Json(vm: VoicemailModel, options: RenderOptions): string {
  return v2Json(voicemailV2(vm, options), vm.uuid, v2UuidText(vm.uuid, vm.index, options));
}

export function voicemailV2(vm: VoicemailModel, options: RenderOptions): Record<string, unknown> {
  return {
    uuid: vm.uuid,
    voicemail_to_number: v2Phone(vm.toNumber, vm.uuid, 1, options),
    voicemail_from_number: v2Phone(vm.fromNumber, vm.uuid, 2, options),
    voicemail_transcription_text: vm.transcription,
    voicemail_transcription_summary: vm.summary,
    voicemail_recording_type: 'voicemail',
    voicemail_recording_url: vm.recordingPath,
    voicemail_api_recording_url: vm.apiRecordingUrl,
    voicemail_duration: hms(vm.durationSec),
    voicemail_created_at: v2Time(vm.createdAtSec),
  };
}

export function numberV1(n: NumberModel): Record<string, unknown> {
  return {
    id: n.id,
    number: n.number,
    name: n.name,
    type: n.type,
    status: 'active',
    created_at: isoFromUnixSeconds(n.createdAtSec),
  };
}

export function smsV1(sms: SmsModel): Record<string, unknown> {
  return {
    id: sms.id,
    to_number: sms.toNumber,
    from_number: sms.fromNumber,
    direction: sms.direction,
    body: sms.body,
    status: 'delivered',
    tracking_number_id: sms.trackingNumber.id,
    created_at: isoFromUnixSeconds(sms.createdAtSec),
  };
}
