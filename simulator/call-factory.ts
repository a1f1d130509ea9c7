import type { CallModel, NumberModel } from './models.js';
import type { OutboundToNumber } from './types.js';
import { mix, Rng } from './prng.js';
import { usNumber } from './phone.js';
import { transcription } from './text.js';

/** What every call of one business shares. */
export interface CallContext {
  businessSeed: number;
  numbers: readonly NumberModel[];
  /** `<user-folder>` of relative recording paths. */
  userFolder: string;
  /** v2 uuid of call index 0; later calls count up from it. */
  v2UuidBase: number;
  /** Calls generated as history; later indexes are live arrivals. */
  initialCount: number;
  /** What `to_number` holds on an outbound call (see `SimulatorOptions.outboundToNumber`). @defaultValue 'customer' */
  outboundToNumber?: OutboundToNumber;
}

/** What differs from the seed: a late transcription (new text, bumped `updated_at`) or a hostile field. */
export interface CallOverride {
  transcription?: string;
  updatedAtSec?: number;
  /** Depth of a nested-array `custom_data` field (`hostileRecords.deepNesting`). */
  customDataDepth?: number;
  /** A clock-skewed `created_at`: served as given while the call keeps its arrival slot and id. */
  createdAtSec?: number;
}

/**
 * Version 7 layout: 48-bit millisecond time, then a 12-bit per-second sequence in `rand_a`,
 * so string order equals (created_at, arrival) order.
 */
export function timeOrderedId(createdAtSec: number, seq: number, rng: Rng): string {
  const millis = createdAtSec * 1000;
  // Two 24-bit halves stay small integers, far cheaper to print than one large double.
  const ms = `${Math.floor(millis / 16777216)
    .toString(16)
    .padStart(6, '0')}${(millis % 16777216).toString(16).padStart(6, '0')}`;
  const s = seq.toString(16).padStart(3, '0');
  const r = rng.hex(16);
  const variant = ((parseInt(r[0] ?? '0', 16) & 0x3) | 0x8).toString(16);
  return `${ms.slice(0, 8)}-${ms.slice(8, 12)}-7${s}-${variant}${r.slice(1, 4)}-${r.slice(4, 16)}`;
}

/** Reads back (created_at seconds, sequence) from an id made by `timeOrderedId`. */
export function parseTimeOrderedId(id: string): { createdAtSec: number; seq: number } | undefined {
  if (!/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/.test(id)) return undefined;
  const hex = id.replace(/-/g, '');
  return { createdAtSec: parseInt(hex.slice(0, 12), 16) / 1000, seq: parseInt(hex.slice(13, 16), 16) };
}

/** Derives call `index` from the seed alone: nothing but time and sequence is stored per call. */
export function makeCall(ctx: CallContext, index: number, createdAtSec: number, seq: number, override: CallOverride | undefined): CallModel {
  const rng = new Rng(mix(ctx.businessSeed, 0xca11, index));
  const id = timeOrderedId(createdAtSec, seq, rng);
  const tracking = rng.pick(ctx.numbers);
  const other = usNumber(rng);
  const direction = rng.chance(0.8) ? 'inbound' : 'outbound';
  const roll = rng.next();
  const status = roll < 0.82 ? 'completed' : roll < 0.9 ? 'missed' : roll < 0.95 ? 'no-answer' : 'busy';
  const durationSec = status === 'completed' ? rng.int(8, 1800) : 0;
  const recorded = status === 'completed' && rng.chance(0.75);
  const recordingId = rng.hex(32);
  const text = recorded && rng.chance(0.8) ? transcription(rng) : '';
  const live = index >= ctx.initialCount;
  const created = override?.createdAtSec ?? createdAtSec;
  return {
    index,
    id,
    v2Uuid: ctx.v2UuidBase + index,
    trackingNumber: tracking,
    direction,
    status,
    durationSec,
    ...(direction === 'inbound' || ctx.outboundToNumber === 'tracked'
      ? { toNumber: tracking.number, fromNumber: other }
      : { toNumber: other, fromNumber: tracking.number }),
    recordingPath: recorded ? `/${ctx.userFolder}/recordings/${tracking.folder}/${recordingId}.wav` : null,
    transcription: override?.transcription ?? text,
    createdAtSec: created,
    updatedAtSec: override?.updatedAtSec ?? (live ? created : created + durationSec + rng.int(5, 300)),
    ...(override?.customDataDepth === undefined ? {} : { customDataDepth: override.customDataDepth }),
  };
}
