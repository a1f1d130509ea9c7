import { describe, expect, it } from 'vitest';
import { readAcknowledgement } from './acknowledgement.js';

describe('readAcknowledgement', () => {
  it.each([
    ['a bare 2xx', undefined, undefined, { written: 3, unchanged: 0 }],
    ['a plain-text body', undefined, 'ok', { written: 3, unchanged: 0 }],
    ['Idempotent-Replayed: true', 'true', undefined, { written: 0, unchanged: 3 }],
    ['Idempotent-Replayed: TRUE', ' TRUE ', '{"written":3,"unchanged":0}', { written: 0, unchanged: 3 }],
    ['Idempotent-Replayed: false', 'false', undefined, { written: 3, unchanged: 0 }],
    ['receiver counts', undefined, '{"written":1,"unchanged":2}', { written: 1, unchanged: 2 }],
    ['counts beside other keys', undefined, '{"ok":true,"written":0,"unchanged":1}', { written: 0, unchanged: 1 }],
    ['counts above the batch size', undefined, '{"written":4,"unchanged":0}', { written: 3, unchanged: 0 }],
    ['negative counts', undefined, '{"written":-1,"unchanged":1}', { written: 3, unchanged: 0 }],
    ['fractional counts', undefined, '{"written":1.5,"unchanged":1}', { written: 3, unchanged: 0 }],
    ['one count only', undefined, '{"written":1}', { written: 3, unchanged: 0 }],
    ['broken JSON', undefined, '{"written":', { written: 3, unchanged: 0 }],
    ['a JSON null', undefined, 'null', { written: 3, unchanged: 0 }],
    ['counts inside an array', undefined, '[{"written":1,"unchanged":2}]', { written: 3, unchanged: 0 }],
  ])('%s', (_label, replayed, body, expected) => {
    expect(readAcknowledgement(3, replayed, body)).toEqual(expected);
  });
});
