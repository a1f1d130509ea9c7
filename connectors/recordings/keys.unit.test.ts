import { describe, expect, it } from 'vitest';
import { isMediaType } from './classify.js';
import { archiveKey, checksumObject, checksumOf, extensionOf, possibleKeys } from './keys.js';

describe('archive keys', () => {
  it('are the record’s business, stream, month (UTC) and id, whatever the link', () => {
    const ref = { businessId: 'Acme & Co', stream: 'voicemails', id: 'RE/1', url: 'https://x/a.wav?sig=1', createdAt: '2026-12-31T23:30:00-02:00' };
    expect(archiveKey(ref, 'wav')).toBe('Acme%20%26%20Co/voicemails/2027/01/RE%2F1.wav');
    expect(archiveKey({ ...ref, createdAt: undefined }, 'mp3')).toBe('Acme%20%26%20Co/voicemails/0000/00/RE%2F1.mp3');
    // A segment that would leave the folder's root is encoded.
    expect(archiveKey({ ...ref, businessId: '..', id: '.hidden' }, 'wav')).toBe('%2E./voicemails/2027/01/%2Ehidden.wav');
  });

  it.each([
    ['https://h/r/RE1.wav?sig=abc', undefined, 'wav'],
    ['https://h/r/RE1.MP3', 'audio/wav', 'mp3'],
    ['https://h/r/play?id=1', 'audio/mpeg', 'mp3'],
    ['https://h/r/play', 'audio/x-wav; codec=1', 'wav'],
    ['https://h/r/RE1.php', undefined, 'bin'],
  ])('takes the extension of %s (%s) as %s', (url, type, extension) => {
    expect(extensionOf(url, type)).toBe(extension);
  });

  it('writes the checksum as sha256sum reads it', () => {
    expect(checksumObject('a/b/2026/01/c.wav', 'ab12')).toEqual({ key: 'a/b/2026/01/c.wav.sha256', text: 'ab12  c.wav\n' });
  });

  it.each([
    ['audio/wav', true],
    ['audio/mpeg; charset=binary', true],
    ['video/mp4', true],
    ['application/octet-stream', true],
    [undefined, true],
    ['text/html; charset=utf-8', false],
    ['application/json', false],
  ])('keeps a body of type %s: %s', (type, kept) => {
    expect(isMediaType(type)).toBe(kept);
  });

  it('a link with a known extension has one possible key; one without, a key for each media type and bin', () => {
    const ref = { businessId: 'b', stream: 'calls', id: 'c1', url: 'https://x/r/c1.mp3?sig=1', createdAt: '2026-03-04T00:00:00Z' };
    expect(possibleKeys(ref)).toEqual(['b/calls/2026/03/c1.mp3']);
    const keys = possibleKeys({ ...ref, url: 'https://x/r/c1?sig=1' });
    expect(keys).toContain('b/calls/2026/03/c1.flac');
    expect(keys).toContain('b/calls/2026/03/c1.bin');
    expect(new Set(keys).size).toBe(keys.length);
  });

  it('reads back the SHA-256 of a whole checksum for its own file only', () => {
    const sha256 = 'ab'.repeat(32);
    const { text } = checksumObject('b/calls/2026/03/c1.wav', sha256);
    expect(checksumOf('b/calls/2026/03/c1.wav', text)).toBe(sha256);
    expect(checksumOf('b/calls/2026/03/c2.wav', text)).toBeUndefined();
    expect(checksumOf('b/calls/2026/03/c1.wav', text.slice(0, 40))).toBeUndefined();
    expect(checksumOf('b/calls/2026/03/c1.wav', text.trimEnd())).toBeUndefined();
  });
});
