import { createHash } from 'node:crypto';
import type { Json } from '../../src/sink.js';

/** Identity of a dead letter: the same bad record of the same business and stream gets the same value. */
export function deadLetterFingerprint(businessId: string, stream: string, raw: Json): string {
  return createHash('sha256').update(JSON.stringify([businessId, stream, raw])).digest('hex');
}
