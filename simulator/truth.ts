import type { BusinessData } from './business.js';
import type { ListOrder } from './call-list.js';
import type { CallModel } from './models.js';
import { callV1, callV2, numberV1, smsV1, v2UuidText, voicemailV2 } from './render.js';
import { isoFromUnixSeconds } from './time-format.js';
import type { Truth, TruthRecord } from './types.js';

/** Expected v1-form fields from the canonical model, never from the rendering. */
function callExpected(call: CallModel, recordingsBaseUrl: string): TruthRecord['expected'] {
  return {
    to_number: call.toNumber,
    from_number: call.fromNumber,
    direction: call.direction,
    recording_url: call.recordingPath === null ? null : recordingsBaseUrl + call.recordingPath,
    transcription_text: call.transcription === '' ? null : call.transcription,
    created_at: isoFromUnixSeconds(call.createdAtSec),
  };
}

/** A fractional uuid is the record's id as text; `raw` is what a JSON parser makes of the served text. */
function v2Identity(uuid: number, index: number, business: BusinessData, raw: () => Record<string, unknown>): Pick<TruthRecord, 'id' | 'raw'> {
  const id = v2UuidText(uuid, index, business.render);
  return { id, raw: id === String(uuid) ? raw() : { ...raw(), uuid: Number(id) } };
}

/** Live calls oldest first; `newestFirst` reverses them (v2 always, v1 when `v1Order` says so). */
function calls(business: BusinessData, v2: boolean, length: number, newestFirst: boolean): TruthRecord[] {
  const out: TruthRecord[] = [];
  for (let i = 0; i < length; i++) {
    if (business.calls.isDeleted(i)) continue;
    const call = business.calls.model(i);
    const expected = callExpected(call, business.render.recordingsBaseUrl);
    // The served JSON is exactly JSON.stringify of this object of primitives, so it parses back equal.
    if (v2) out.push({ ...v2Identity(call.v2Uuid, call.index, business, () => callV2(call, business.render)), expected });
    else out.push({ id: call.id, raw: callV1(call, business.render), expected });
  }
  return newestFirst ? out.reverse() : out;
}

function voicemails(business: BusinessData): TruthRecord[] {
  const base = business.render.recordingsBaseUrl;
  return business.voicemails
    .all()
    .map((vm) => ({
      ...v2Identity(vm.uuid, vm.index, business, () => voicemailV2(vm, business.render)),
      expected: {
        to_number: vm.toNumber,
        from_number: vm.fromNumber,
        transcription_text: vm.transcription === '' ? null : vm.transcription,
        transcription_summary: vm.summary,
        recording_type: 'voicemail',
        recording_url: base + vm.recordingPath,
        api_recording_url: vm.apiRecordingUrl,
        duration_seconds: vm.durationSec,
        created_at: isoFromUnixSeconds(vm.createdAtSec),
      },
    }))
    .reverse();
}

/**
 * Ground truth of one business at the moment of the call, in serving order (v1 lists in
 * `v1Order`, v2 lists newest first); records deleted upstream are not in it. The two call lists are own enumerable getters built on first
 * access (so `toEqual` still compares them): with a million calls, a test that reads only
 * `numbers` pays nothing for `calls`.
 */
export function buildTruth(business: BusinessData, v1Order: ListOrder): Truth {
  const length = business.calls.length;
  let v1: TruthRecord[] | undefined;
  let v2: TruthRecord[] | undefined;
  const truth: Omit<Truth, 'calls' | 'v2Calls'> = {
    voicemails: voicemails(business),
    numbers: business.numbers.map((n) => ({ id: n.id, raw: numberV1(n), expected: { number: n.number } })),
    sms: (v1Order === 'oldest' ? business.sms : [...business.sms].reverse()).map((m) => ({
      id: m.id,
      raw: smsV1(m),
      expected: { to_number: m.toNumber, from_number: m.fromNumber, direction: m.direction, created_at: isoFromUnixSeconds(m.createdAtSec) },
    })),
  };
  Object.defineProperty(truth, 'calls', { enumerable: true, get: () => (v1 ??= calls(business, false, length, v1Order === 'newest')) });
  Object.defineProperty(truth, 'v2Calls', { enumerable: true, get: () => (v2 ??= calls(business, true, length, true)) });
  // The two getters were just defined above; the type system cannot see defineProperty.
  return truth as Truth;
}
