import { describe, expect, it } from 'vitest';
import { parseRecordingUrl } from './primitives.js';

const base = 'https://calls.example.com';

describe('parseRecordingUrl', () => {
  it.each([
    ['/u1/recordings/ivr/r1.wav', base, 'https://calls.example.com/u1/recordings/ivr/r1.wav'],
    ['/u1/recordings/ivr/r1.wav', `${base}/`, 'https://calls.example.com/u1/recordings/ivr/r1.wav'],
    ['/r.wav', 'https://host.example.com/media//', 'https://host.example.com/media/r.wav'],
    ['https://api.twilio.com/2010-04-01/Recordings/RE1', base, 'https://api.twilio.com/2010-04-01/Recordings/RE1'],
    ['HTTP://example.com/a.wav', base, 'HTTP://example.com/a.wav'],
    ['https://user@example.com:8443/a b.wav?x=1#t', base, 'https://user@example.com:8443/a b.wav?x=1#t'],
    [null, base, null],
    [undefined, base, null],
    ['', base, null],
  ])('%j on %s → %j', (input, baseUrl, expected) => {
    expect(parseRecordingUrl(input, baseUrl)).toEqual({ ok: true, value: expected });
  });

  it.each([
    ['ftp://example.com/a.wav', 'not an absolute URL or /path: "ftp://example.com/a.wav"'],
    ['//evil.example.com/a.wav', 'not an absolute URL or /path: "//evil.example.com/a.wav"'],
    ['recordings/a.wav', 'not an absolute URL or /path: "recordings/a.wav"'],
    ['http://', 'invalid URL "http://"'],
    ['https://exa mple.com/a.wav', 'invalid URL "https://exa mple.com/a.wav"'],
    ['https://example.com:99999/a.wav', 'invalid URL "https://example.com:99999/a.wav"'],
    ['https://1.2.3.999/a.wav', 'invalid URL "https://1.2.3.999/a.wav"'],
    [42, 'expected a URL or path, got a number'],
    [{ url: '/a.wav' }, 'expected a URL or path, got an object'],
  ])('%j is a problem', (input, message) => {
    expect(parseRecordingUrl(input, base)).toEqual({ ok: false, problem: message });
  });
});
