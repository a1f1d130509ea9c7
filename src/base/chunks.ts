/**
 * `items` in order, in parts of at most `size` (only the last may be shorter): none for an empty
 * list, so a caller that must act once even for nothing says so itself. A list that fits is
 * answered as the one part it is, not copied. `size` is a whole number from 1, or `Infinity`.
 */
export function chunks<T>(items: readonly T[], size: number): (readonly T[])[] {
  if (!(Number.isInteger(size) && size >= 1) && size !== Number.POSITIVE_INFINITY)
    throw new RangeError(`chunk size must be a whole number from 1, got ${size}`);
  if (items.length <= size) return items.length === 0 ? [] : [items];
  const parts: (readonly T[])[] = [];
  for (let start = 0; start < items.length; start += size) parts.push(items.slice(start, start + size));
  return parts;
}
