import type { NumberModel, SmsModel } from './models.js';
import { HISTORY_END_SEC, HISTORY_SPAN_SEC, historyTime } from './models.js';
import { mix, Rng } from './prng.js';
import { tollFreeNumber, usNumber } from './phone.js';
import { NUMBER_LABELS } from './text.js';

/** Tracked numbers of one business: every fifth is toll-free. */
export function makeNumbers(businessSeed: number, count: number): NumberModel[] {
  const rng = new Rng(mix(businessSeed, 0x4e55));
  const numbers: NumberModel[] = [];
  for (let i = 0; i < count; i++) {
    const tollFree = i % 5 === 4;
    numbers.push({
      id: rng.uuid(),
      number: tollFree ? tollFreeNumber(rng) : usNumber(rng),
      name: `${NUMBER_LABELS[i % NUMBER_LABELS.length] ?? 'Line'}${i >= NUMBER_LABELS.length ? ` ${i + 1}` : ''}`,
      type: tollFree ? 'toll_free' : 'local',
      folder: `ivr-${String(i + 1).padStart(3, '0')}`,
      createdAtSec: HISTORY_END_SEC - HISTORY_SPAN_SEC - (count - i) * 86400,
    });
  }
  return numbers;
}

const SMS_BODIES = [
  'Thanks for calling! Reply with a good time for a callback.',
  'Can you come Tuesday morning?',
  'Your appointment is confirmed for tomorrow at 9am.',
  'Is the quote still valid?',
  'Running 10 minutes late.',
  'STOP',
] as const;

/** A small fixed SMS history: the legacy endpoint needs data, not volume. */
export function makeSms(businessSeed: number, numbers: readonly NumberModel[], count: number): SmsModel[] {
  const rng = new Rng(mix(businessSeed, 0x535));
  const out: SmsModel[] = [];
  for (let i = 0; i < count && numbers.length > 0; i++) {
    const tracking = rng.pick(numbers);
    const other = usNumber(rng);
    const inbound = rng.chance(0.6);
    out.push({
      id: rng.uuid(),
      trackingNumber: tracking,
      direction: inbound ? 'inbound' : 'outbound',
      toNumber: inbound ? tracking.number : other,
      fromNumber: inbound ? other : tracking.number,
      body: rng.pick(SMS_BODIES),
      createdAtSec: historyTime(i, count, rng.next()),
    });
  }
  return out;
}
