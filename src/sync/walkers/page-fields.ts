import type { Json, JsonObject } from '../../sink.js';
import type { StreamDescriptor } from '../stream-descriptor.js';
import type { WalkContext, WalkItem } from './walker.js';

/** An upstream payload that breaks the contract for a whole page; the stream stops with this message. */
export class PayloadShapeError extends Error {
  override readonly name = 'PayloadShapeError';
}

/** The records array of a page; anything else is a contract break naming the endpoint and key. */
export function recordsOf(payload: JsonObject, descriptor: StreamDescriptor): Json[] {
  const records = payload[descriptor.recordsKey];
  if (!Array.isArray(records)) {
    const found = records === undefined ? 'nothing' : typeof records;
    throw new PayloadShapeError(
      `GET ${descriptor.path}: expected "${descriptor.recordsKey}" to be an array of records, found ${found}`,
    );
  }
  return records;
}

export function numberField(object: JsonObject | undefined, key: string): number | undefined {
  const value = object?.[key];
  return typeof value === 'number' && Number.isFinite(value) ? value : undefined;
}

export function stringField(object: JsonObject | undefined, key: string): string | undefined {
  const value = object?.[key];
  return typeof value === 'string' && value !== '' ? value : undefined;
}

export function normalizeAll(context: WalkContext, raws: readonly Json[]): WalkItem[] {
  return raws.map((raw) => ({ raw, result: context.normalize(raw) }));
}
