import { z } from 'zod';
import { toE164 } from './other-party.js';

/**
 * `trackedNumbers:` of a CRM sink section: the business's own numbers, any typing, added to what
 * the `numbers` stream stores; every entry must be a phone number (the error names its index).
 * @defaultValue []
 */
export const trackedNumbersSchema = z
  .array(z.string().refine((value) => toE164(value) !== null, { error: 'expected a phone number, e.g. +14155550123 or (415) 555-0123' }))
  .default([]);
