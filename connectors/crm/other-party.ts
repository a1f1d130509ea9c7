import { parsePhoneNumberFromString } from 'libphonenumber-js';
import { parsePhone } from '../../src/normalize/index.js';
import type { SinkNote } from '../../src/sink/sink.js';

/**
 * The rule every CRM connector uses to find the customer on a call or voicemail. The upstream
 * specification says `call_to_number` is "the tracked service number" yet names outbound calls;
 * it is silent on which number an outbound call carries where, so the rule reads the data
 * instead of guessing from the direction: the customer is the number that is NOT one of the
 * business's tracked numbers. Only when both or neither are tracked does the direction decide
 * (inbound and voicemail → the caller `from`, outbound → the callee `to`), and a CRM connector
 * counts those calls ({@link PartyTally}) so a person sees them.
 */

const E164 = /^\+[1-9]\d{6,14}$/;

/** The numbers and direction of one call or voicemail, as a `SyncRecord`'s fields carry them. */
export interface PartyInput {
  /** `from_number` (any typing; compared in E.164). */
  readonly from: unknown;
  /** `to_number` (any typing; compared in E.164). */
  readonly to: unknown;
  /** `inbound`, `outbound` or null (unknown); a voicemail is `inbound`. */
  readonly direction: 'inbound' | 'outbound' | null;
}

/**
 * How the customer's number was decided:
 * - `tracked`: exactly one of the two numbers is tracked; the other is the customer.
 * - `direction`: both or neither are tracked; the direction decided (count these).
 * - `none`: the call carries no usable number at all; there is nobody to find.
 */
export type PartyBasis = 'tracked' | 'direction' | 'none';

/** The other party of a call. */
interface OtherParty {
  /** The customer's number in E.164, or null when that side is empty or not a phone number. */
  readonly number: string | null;
  /** Which field it came from; null with basis `none`. */
  readonly side: 'from' | 'to' | null;
  readonly basis: PartyBasis;
}

/**
 * A number in E.164 however it was typed (`+14155550123`, `(415) 555-0123`, `415.555.0123`,
 * `4155550123`, a bare JSON number), with the same rules the normalizers use (libphonenumber-js,
 * US default for national numbers); null when it is not a phone number.
 */
export function toE164(value: unknown): string | null {
  if (typeof value === 'string') {
    const text = value.trim();
    if (E164.test(text)) return text;
    // National entries first (`4155550123` is a US number, not country 4); digits that are no
    // possible US number are taken as carrying their country code, as the normalizers do.
    const national = /^[\d\s().\-/+]{7,40}$/.test(text) ? parsePhoneNumberFromString(text, 'US') : undefined;
    if (national?.isPossible() === true && E164.test(national.number)) return national.number;
  }
  const result = parsePhone(value);
  return result.ok ? result.value : null;
}

/**
 * The customer's number on one call. Pure: `isTracked` is asked with E.164 numbers (build it with
 * {@link TrackedNumbers.of} or a `Set` of E.164 strings). Guarantees: when exactly one side is a
 * tracked number, the other side is returned whatever the direction says; otherwise `basis` is
 * `direction`, or `none` when neither side holds a phone number.
 */
export function otherParty(input: PartyInput, isTracked: (e164: string) => boolean): OtherParty {
  const from = toE164(input.from);
  const to = toE164(input.to);
  if (from === null && to === null) return { number: null, side: null, basis: 'none' };
  const fromTracked = from !== null && isTracked(from);
  const toTracked = to !== null && isTracked(to);
  if (fromTracked !== toTracked) return fromTracked ? { number: to, side: 'to', basis: 'tracked' } : { number: from, side: 'from', basis: 'tracked' };
  return input.direction === 'outbound' ? { number: to, side: 'to', basis: 'direction' } : { number: from, side: 'from', basis: 'direction' };
}

/** {@link SinkNote.code} of calls whose customer the direction decided. */
const DIRECTION_DECIDED = 'party_by_direction';

/**
 * The note a CRM target returns for a batch in which `count` calls had both or neither number
 * tracked; undefined for 0. The engine sums it over the run and shows it in the summary and status.
 */
export function directionDecidedNote(count: number): SinkNote | undefined {
  if (count <= 0) return undefined;
  return {
    code: DIRECTION_DECIDED,
    count,
    message:
      "call(s) had both or neither number among the business's tracked numbers, so the direction chose the customer's number; sync the numbers stream or list the numbers in the sink's trackedNumbers",
  };
}
