import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { WAV_HEADER_BYTES, recordingChunks, recordingDigest, recordingIdOf, recordingSize } from './recording-bytes.js';

function whole(id: string, size: number, start?: number, end?: number): Buffer {
  return Buffer.concat([...recordingChunks(id, size, start, end)]);
}

describe('recording bytes', () => {
  it('start with a RIFF/WAVE header that declares the length: 8 kHz mono 8-bit PCM', () => {
    const bytes = whole('abc', 200_000);
    expect(bytes.length).toBe(200_000);
    expect(bytes.toString('ascii', 0, 4)).toBe('RIFF');
    expect(bytes.readUInt32LE(4)).toBe(200_000 - 8);
    expect(bytes.toString('ascii', 8, 16)).toBe('WAVEfmt ');
    expect([bytes.readUInt16LE(20), bytes.readUInt16LE(22), bytes.readUInt32LE(24), bytes.readUInt16LE(34)]).toEqual([1, 1, 8000, 8]);
    expect(bytes.toString('ascii', 36, 40)).toBe('data');
    expect(bytes.readUInt32LE(40)).toBe(200_000 - WAV_HEADER_BYTES);
  });

  it('are the same for the same id and size, differ by id, and repeat no 64 KiB block', () => {
    expect(whole('a', 300_000).equals(whole('a', 300_000))).toBe(true);
    expect(whole('a', 300_000).subarray(44).equals(whole('b', 300_000).subarray(44))).toBe(false);
    const data = whole('a', 44 + 3 * 65_536).subarray(44);
    expect(data.subarray(0, 65_536).equals(data.subarray(65_536, 131_072))).toBe(false);
  });

  it('give any range exactly as the slice of the whole, across the header and block edges', () => {
    const size = 44 + 2 * 65_536 + 777;
    const all = whole('range', size);
    for (const [start, end] of [
      [0, 1],
      [10, 44],
      [43, 45],
      [44, 65_580],
      [65_579, 65_581],
      [100, size],
      [size - 1, size],
    ] as const) {
      expect(whole('range', size, start, end).equals(all.subarray(start, end))).toBe(true);
    }
    for (const chunk of recordingChunks('range', size)) expect(chunk.length).toBeLessThanOrEqual(65_536);
  });

  it('keep going past the declared size for an endless body, the header saturating past 4 GiB', () => {
    const more = whole('e', 1000, 0, 5000);
    expect(more.length).toBe(5000);
    expect(more.subarray(0, 1000).equals(whole('e', 1000))).toBe(true);
    expect(whole('e', 2 ** 33, 0, 44).readUInt32LE(40)).toBe(0xffffffff);
  });

  it('are pinned: an archive made against an earlier simulator still verifies', () => {
    expect(recordingDigest('RE0123abc', 200_000).sha256).toBe('b91278dc2c2b7820c6749d04365b3bd6faf5e85871576d9a834440ab2388783a');
  });

  it('digest to the SHA-256 of the bytes', () => {
    const bytes = whole('RE0123', 70_000);
    expect(recordingDigest('RE0123', 70_000)).toEqual({ bytes: 70_000, sha256: createHash('sha256').update(bytes).digest('hex') });
  });

  it('have a size fixed, or drawn per id within the bounds, never below the header', () => {
    expect(recordingSize('x', 5000)).toBe(5000);
    expect(recordingSize('x', 3)).toBe(WAV_HEADER_BYTES);
    const sizes = Array.from({ length: 200 }, (_, i) => recordingSize(`id-${i}`, { min: 1000, max: 1100 }));
    expect(Math.min(...sizes)).toBeGreaterThanOrEqual(1000);
    expect(Math.max(...sizes)).toBeLessThanOrEqual(1100);
    expect(new Set(sizes).size).toBeGreaterThan(50);
    expect(recordingSize('id-7', { min: 1000, max: 1100 })).toBe(sizes[7]);
  });

  it('take the recording id from a link of either kind', () => {
    expect(recordingIdOf('http://127.0.0.1:1/media/user-1/recordings/ivr-001/0a1b.wav')).toBe('0a1b');
    expect(recordingIdOf('http://h/2010-04-01/Accounts/AC1/Recordings/RE9.wav?X-Amz-Expires=60')).toBe('RE9');
    expect(recordingIdOf('RE9')).toBe('RE9');
  });
});
