import { parsePhoneNumberFromString } from 'libphonenumber-js';

/** The digit forms of an E.164 number that a contact's phone may hold, however it was typed. */
export interface PhoneForms {
  /** Country code and national number, digits only (`14155550123`). */
  readonly international: string;
  /** The national significant number, digits only (`4155550123`). */
  readonly national: string;
}

/**
 * The forms of an E.164 caller number; `null` for anything that is not E.164 (nothing to match).
 * HubSpot's calculated searchable phone properties hold one of these two forms.
 */
export function phoneForms(e164: string): PhoneForms | null {
  if (!/^\+[1-9]\d{6,14}$/.test(e164)) return null;
  const parsed = parsePhoneNumberFromString(e164);
  const international = e164.slice(1);
  if (parsed === undefined) return { international, national: international };
  return { international, national: String(parsed.nationalNumber) };
}

/**
 * Whether a phone as a person typed it (`(415) 555-0123`, `415.555.0123`, `+1 415 555 0123`,
 * `001 415 555 0123`, `0 20 7946 0018`) is the number with these forms: the typed digits, after
 * an international `00` or `+`, equal the international form, or (a national entry) the national
 * number with or without one trunk `0`/`1` in front. Extensions (`x12`, `ext. 12`) are ignored.
 */
export function typedPhoneMatches(typed: unknown, forms: PhoneForms): boolean {
  if (typeof typed !== 'string' && typeof typed !== 'number') return false;
  const withoutExtension = String(typed).split(/\s*(?:x|ext\.?|extension|#)\s*\d+\s*$/i)[0] ?? '';
  let digits = withoutExtension.replace(/\D/g, '');
  if (digits === '') return false;
  if (withoutExtension.trim().startsWith('+')) return digits === forms.international;
  if (digits.startsWith('00')) digits = digits.slice(2);
  if (digits === forms.international || digits === forms.national) return true;
  return /^[01]/.test(digits) && digits.slice(1) === forms.national;
}
