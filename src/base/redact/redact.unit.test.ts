import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { forTerminal, outsideText, truncate } from './outside-text.js';
import { createRedactor, redactDeep, redactUrlCredentials } from './redactor.js';

const KEY = 'ck_live_SECRETKEY123456';

/** Every `size`-character piece of `secret`: none may show in a redacted text. */
function fragments(secret: string, size = 8): string[] {
  return Array.from({ length: secret.length - size + 1 }, (_, index) => secret.slice(index, index + size));
}

/** The model: a secret of 4 characters or more anywhere, a shorter one with no letter, digit or `_` beside it. */
function occurs(line: string, secret: string): boolean {
  if (secret === '') return false;
  if (secret.length >= 4) return line.includes(secret);
  const word = (char: string | undefined) => char !== undefined && /[\p{L}\p{N}_]/u.test(char);
  for (let at = line.indexOf(secret); at !== -1; at = line.indexOf(secret, at + 1)) {
    if (!word(line[at - 1]) && !word(line[at + secret.length])) return true;
  }
  return false;
}

describe('createRedactor', () => {
  it('removes every secret, the longer first, and its JSON spelling', () => {
    const redact = createRedactor(['pw"with\\quote', 'hunter2', 'hunter2-and-more', undefined, '']);
    expect(redact('a hunter2-and-more b hunter2 c')).toBe('a [redacted] b [redacted] c');
    expect(redact(JSON.stringify({ message: 'pw"with\\quote' }))).toBe('{"message":"[redacted]"}');
  });

  // Issue 30 item 6: a secret under 4 characters (`server.token: a`) used to be served as it was.
  it('removes a secret shorter than 4 characters wherever it stands alone, and leaves words that hold it', () => {
    const redact = createRedactor(['a', 'x1', 'q"z', 'ab.']);
    expect(redact('Authorization: Bearer a')).toBe('Authorization: Bearer [redacted]');
    expect(redact(JSON.stringify({ token: 'a', key: 'x1' }))).toBe('{"token":"[redacted]","key":"[redacted]"}');
    expect(redact('GET /status?token=a&v=x1')).toBe('GET /status?token=[redacted]&v=[redacted]');
    expect(redact(JSON.stringify({ secret: 'q"z' }))).toBe('{"secret":"[redacted]"}');
    expect(redact('key ab. then ab.c')).toBe('key [redacted] then ab.c');
    expect(redact('a business started, x12 and ax1 and é-a-ü stay')).toBe('[redacted] business started, x12 and ax1 and é-[redacted]-ü stay');
    expect(redact('an état bâ a_b')).toBe('an état bâ a_b');
  });

  it('finds any of thousands of secrets sharing a prefix, wherever it stands, and leaves clean text alone', () => {
    const keys = Array.from({ length: 3_000 }, (_, i) => `ck_live_${String(i).padStart(6, '0')}zz${i % 7}`);
    const redact = createRedactor([...keys, 'pässwörd', 'abcd']);
    const clean = JSON.stringify({ level: 30, msg: 'sync done', business: 'b-0042', stream: 'calls', key: 'ck_live_' });
    expect(redact(clean)).toBe(clean);
    expect(redact(keys[2_999] ?? '')).toBe('[redacted]');
    expect(redact(`${keys[0] ?? ''} middle ${keys[1_234] ?? ''}`)).toBe('[redacted] middle [redacted]');
    expect(redact('x pässwörd')).toBe('x [redacted]');
    expect(redact('abcd')).toBe('[redacted]');
    expect(redact('abc')).toBe('abc');
  });

  it('finds a secret at any place a text holds one, as a plain search would, whatever its characters', () => {
    // Small alphabets make near misses (a shared tail, a shared prefix) common; the one-pass check must still agree.
    const text = (chars: string, max: number) => fc.array(fc.constantFrom(...chars), { maxLength: max }).map((cs) => cs.join(''));
    const alphabet = 'ab"\\é\u2028';
    fc.assert(
      fc.property(fc.array(text(alphabet, 9), { maxLength: 6 }), text(alphabet, 40), (secrets, line) => {
        const found = secrets.some((s) => [s, JSON.stringify(s).slice(1, -1)].some((spelling) => occurs(line, spelling)));
        expect(createRedactor(secrets)(line) !== line).toBe(found);
      }),
      { numRuns: 2_000 },
    );
  });

  it('removes credentials from URLs anywhere in a text', () => {
    expect(redactUrlCredentials('connect postgres://app:pw@db:5432/x failed; redis://:tok@r:6379')).toBe(
      'connect postgres://[redacted]@db:5432/x failed; redis://[redacted]@r:6379',
    );
    expect(createRedactor([])('see https://example.com/a@b and https://u:p@h/x')).toBe('see https://example.com/a@b and https://[redacted]@h/x');
  });

  it('reads a secret list given as a function on every call (a cookie learned later)', () => {
    const session: { cookie?: string } = {};
    const redact = createRedactor(() => [session.cookie]);
    expect(redact('sid=abcdef')).toBe('sid=abcdef');
    session.cookie = 'sid=abcdef';
    expect(redact('sid=abcdef')).toBe('[redacted]');
  });

  it('applies a redactor to every string of a nested value and keeps the rest', () => {
    const value = { a: ['key-123', 1, null, { b: 'xkey-123x' }], 'key-123': true };
    expect(redactDeep(value, (t) => t.replaceAll('key-123', '***'))).toEqual({ a: ['***', 1, null, { b: 'x***x' }], '***': true });
  });
});

describe('forTerminal', () => {
  it.each([
    ['CSI colour and clear screen', 'a\u001b[31mred\u001b[0m\u001b[2Jb', 'aredb'],
    ['OSC title ended by BEL', 'x\u001b]0;pwned\u0007y', 'xy'],
    ['OSC ended by ST', 'x\u001b]8;;http://e\u001b\\y', 'xy'],
    ['8-bit CSI', 'x\u009b31my', 'xy'],
    ['other C0, DEL and C1', 'a\u0000b\u0007c\u007fd\u0085e\r', 'abcde'],
    ['a lone ESC', 'a\u001b', 'a'],
  ])('strips %s', (_name, text, expected) => {
    expect(forTerminal(text)).toBe(expected);
  });

  it('keeps tab, newline and ordinary Unicode', () => {
    expect(forTerminal('a\tb\nc é 日本 ✓')).toBe('a\tb\nc é 日本 ✓');
  });
});

describe('scrub, then cut', () => {
  const redact = createRedactor([KEY]);
  const message = `${'x'.repeat(190 - 'Authorization: Bearer '.length)}Authorization: Bearer ${KEY} and more text after it`;

  it('leaves no fragment of a secret that straddles the cut', () => {
    expect(message.indexOf(KEY)).toBe(190);
    const cut = outsideText(message, redact, 200);
    expect(cut.length).toBeLessThanOrEqual(201);
    for (const fragment of fragments(KEY)) expect(cut).not.toContain(fragment);
    // The wrong order would have leaked: cut first, and the half key no longer matches.
    expect(redact(truncate(message, 200))).toContain(KEY.slice(0, 10));
  });

  it('strips control characters before scrubbing, so one cannot hide a secret', () => {
    const hidden = `${KEY.slice(0, 5)}\u001b[0m${KEY.slice(5)}`;
    expect(outsideText(hidden, redact)).toBe('[redacted]');
  });

  it('marks a cut with an ellipsis', () => {
    expect(truncate('abcdef', 3)).toBe('abc…');
    expect(truncate('abc', 3)).toBe('abc');
  });
});
