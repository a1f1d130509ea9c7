import { createHash } from 'node:crypto';
import { mix, Rng } from './prng.js';

/**
 * A recording's bytes, from its id alone: a 44-byte RIFF/WAVE header (8 kHz, mono, 8-bit PCM, so
 * any length is whole samples) and then noise. Anyone holding the recording id and the size can
 * compute the exact bytes and their SHA-256 without asking the simulator: the tests of an archive
 * compare what it stored with {@link recordingDigest}.
 */

/** Bytes in the WAV header; a recording is never shorter. */
export const WAV_HEADER_BYTES = 44;

/** Size of one generated block; the body streams block by block, so a 2 GB body is never held. */
const BLOCK_BYTES = 64 * 1024;
const BLOCK_WORDS = BLOCK_BYTES / 4;
const SAMPLE_RATE = 8000;
const MAX_U32 = 0xffffffff;

/** Bytes per recording: one size for all, or a size drawn per recording from its id, both bounds inclusive. */
export type RecordingSize = number | { min: number; max: number };

/** The recording id in a recording link: its last path segment without `.wav` (query and fragment ignored). */
export function recordingIdOf(url: string): string {
  const path = url.split(/[?#]/, 1)[0] ?? '';
  const last = path.slice(path.lastIndexOf('/') + 1);
  return last.endsWith('.wav') ? last.slice(0, -'.wav'.length) : last;
}

function idSeed(recordingId: string): number {
  return createHash('sha256').update(recordingId).digest().readUInt32LE(0);
}

/** How many bytes the recording has (header included, at least {@link WAV_HEADER_BYTES}). */
export function recordingSize(recordingId: string, size: RecordingSize): number {
  if (typeof size === 'number') return Math.max(WAV_HEADER_BYTES, Math.floor(size));
  const min = Math.max(WAV_HEADER_BYTES, Math.floor(Math.min(size.min, size.max)));
  const max = Math.max(min, Math.floor(Math.max(size.min, size.max)));
  return min + (mix(idSeed(recordingId), 0x5123) % (max - min + 1));
}

function wavHeader(totalBytes: number): Buffer {
  const header = Buffer.alloc(WAV_HEADER_BYTES);
  header.write('RIFF', 0, 'ascii');
  // Past 4 GiB the fields saturate, as recorders do; the simulator's endless bodies reach there.
  header.writeUInt32LE(Math.min(MAX_U32, totalBytes - 8), 4);
  header.write('WAVE', 8, 'ascii');
  header.write('fmt ', 12, 'ascii');
  header.writeUInt32LE(16, 16);
  header.writeUInt16LE(1, 20); // PCM
  header.writeUInt16LE(1, 22); // mono
  header.writeUInt32LE(SAMPLE_RATE, 24);
  header.writeUInt32LE(SAMPLE_RATE, 28); // byte rate: one byte per sample
  header.writeUInt16LE(1, 32); // block align
  header.writeUInt16LE(8, 34); // bits per sample
  header.write('data', 36, 'ascii');
  header.writeUInt32LE(Math.min(MAX_U32, totalBytes - WAV_HEADER_BYTES), 40);
  return header;
}

/** Words between two marked words of a block: one a 4 KiB page. */
const PAGE_WORDS = 1024;

/** The first block of noise; block k is a copy of it with one word of each 4 KiB page XOR a word drawn from (seed, k). */
function baseBlock(seed: number): Buffer {
  const rng = new Rng(mix(seed, 0xb10c));
  const block = Buffer.allocUnsafeSlow(BLOCK_BYTES);
  for (let i = 0; i < BLOCK_BYTES; i += 4) block.writeUInt32LE(Math.floor(rng.next() * 4294967296), i);
  return block;
}

/**
 * Block k: a native copy of the base plus one changed word a page, so no two blocks (and no two
 * pages a block apart) are equal, and a client that resumes at a wrong offset gets another hash,
 * at nearly the cost of a copy.
 */
function dataBlock(base: Buffer, seed: number, k: number): Buffer {
  const key = mix(seed, k);
  // Not zero-filled: the copy writes every byte. At 64 KiB it is its own buffer, so word-aligned.
  const block = Buffer.allocUnsafeSlow(BLOCK_BYTES);
  base.copy(block);
  const words = new Uint32Array(block.buffer, block.byteOffset, BLOCK_WORDS);
  for (let i = 0; i < BLOCK_WORDS; i += PAGE_WORDS) words[i] = (words[i] as number) ^ key;
  return block;
}

/**
 * Bytes `start` (inclusive) to `end` (exclusive) of a recording of `totalBytes`, in chunks of at
 * most 64 KiB, generated as they are taken: memory stays at one block whatever the range.
 * `totalBytes` is what the header declares; `end` may pass it (an endless body keeps the pattern).
 */
export function* recordingChunks(recordingId: string, totalBytes: number, start = 0, end = totalBytes): Generator<Buffer> {
  let at = Math.max(0, start);
  if (at < WAV_HEADER_BYTES && at < end) {
    const header = wavHeader(totalBytes);
    yield header.subarray(at, Math.min(WAV_HEADER_BYTES, end));
    at = Math.min(WAV_HEADER_BYTES, end);
  }
  if (at >= end) return;
  const seed = idSeed(recordingId);
  const base = baseBlock(seed);
  while (at < end) {
    const offset = at - WAV_HEADER_BYTES;
    const k = Math.floor(offset / BLOCK_BYTES);
    const from = offset - k * BLOCK_BYTES;
    const to = Math.min(BLOCK_BYTES, from + (end - at));
    yield dataBlock(base, seed, k).subarray(from, to);
    at += to - from;
  }
}

/** The recording's length and SHA-256 (hex), computed by streaming its bytes through the hash. */
export function recordingDigest(recordingId: string, totalBytes: number): { bytes: number; sha256: string } {
  const hash = createHash('sha256');
  for (const chunk of recordingChunks(recordingId, totalBytes)) hash.update(chunk);
  return { bytes: totalBytes, sha256: hash.digest('hex') };
}
