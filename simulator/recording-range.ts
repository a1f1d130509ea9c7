/** A byte range of a recording: `start` inclusive, `end` exclusive. */
export interface ByteRange {
  start: number;
  end: number;
}

/**
 * What a `Range` header asks of a body of `size` bytes (RFC 9110 §14): one range, or
 * `'unsatisfiable'` (a 416), or undefined for the whole body. Several ranges, another unit or a
 * malformed header are ignored, which the RFC allows: the whole body is the answer.
 */
export function parseRange(header: string | undefined, size: number): ByteRange | 'unsatisfiable' | undefined {
  if (header === undefined) return undefined;
  const match = /^bytes=(\d*)-(\d*)$/.exec(header.trim());
  if (match === null) return undefined;
  const [, first = '', last = ''] = match;
  if (first === '' && last === '') return undefined;
  if (first === '') {
    // A suffix: the last N bytes.
    const n = Number(last);
    if (n === 0) return 'unsatisfiable';
    return { start: Math.max(0, size - n), end: size };
  }
  const start = Number(first);
  if (last !== '' && Number(last) < start) return undefined;
  if (start >= size) return 'unsatisfiable';
  const end = last === '' ? size : Math.min(size, Number(last) + 1);
  return { start, end };
}
