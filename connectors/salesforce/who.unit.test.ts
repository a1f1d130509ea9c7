import { describe, expect, it } from 'vitest';
import { phoneForms, typedPhoneMatches } from '../hubspot/phone-match.js';
import { MAX_SOQL_CHARS, NUMBERS_PER_QUERY, phoneChunks, phoneQuery } from './who.js';

const form = (e164: string) => {
  const forms = phoneForms(e164);
  if (forms === null) throw new Error(e164);
  return forms;
};

/** SOQL LIKE as Salesforce documents it: `%` any run, `_` one character, case-insensitive. */
function like(pattern: string, value: string): boolean {
  const body = [...pattern].map((char) => (char === '%' ? '.*' : char === '_' ? '.' : char.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))).join('');
  return new RegExp(`^${body}$`, 'i').test(value);
}

describe('phone lookups', () => {
  it('builds one LIKE per number and phone field that matches the number however it was typed', () => {
    const query = phoneQuery('Contact', ['Phone', 'MobilePhone'], [form('+14155550123')]);
    expect(query).toBe(
      "SELECT Id, Phone, MobilePhone FROM Contact WHERE Phone LIKE '%4%1%5%5%5%5%0%1%2%3%' OR MobilePhone LIKE '%4%1%5%5%5%5%0%1%2%3%' ORDER BY Id",
    );
    const pattern = /LIKE '([^']+)'/.exec(query)?.[1] ?? '';
    for (const typed of ['(415) 555-0123', '415.555.0123', '+1 415 555 0123', '1-415-555-0123', '4155550123', '415-555-0123 x12']) {
      expect(like(pattern, typed), typed).toBe(true);
      expect(typedPhoneMatches(typed, form('+14155550123')), typed).toBe(true);
    }
    expect(like(pattern, '(415) 555-0124')).toBe(false);
  });

  it('chunks numbers so every query stays within the SOQL bound, at most NUMBERS_PER_QUERY each, keeping all numbers', () => {
    const forms = Array.from({ length: 1000 }, (_, index) => form(`+1415${String(2_000_000 + index)}`));
    const fields = ['Phone', 'MobilePhone', 'Other_Phone__c'];
    const chunks = phoneChunks(forms, fields);
    expect(chunks.flat()).toEqual(forms);
    for (const chunk of chunks) {
      expect(chunk.length).toBeLessThanOrEqual(NUMBERS_PER_QUERY);
      expect(phoneQuery('Contact', fields, chunk).length).toBeLessThanOrEqual(MAX_SOQL_CHARS);
    }
    expect(chunks.length).toBe(3);
  });

  it('asks a page of 500 new numbers (two phone fields) in one query per object', () => {
    const forms = Array.from({ length: 500 }, (_, index) => form(`+1415${String(2_000_000 + index)}`));
    expect(phoneChunks(forms, ['Phone', 'MobilePhone'])).toEqual([forms]);
  });
});
