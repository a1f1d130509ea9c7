import type { Json } from './sink.js';

/**
 * `JSON.stringify`, except that JSON nested too deep for it (a few thousand levels overflow the
 * stack) is written by an explicit stack instead, with the same output (compact: `indent` only
 * applies when `JSON.stringify` copes). Such a record can only be a dead letter, and a dead letter
 * must still be storable and printable.
 */
export function jsonText(value: unknown, indent?: number): string {
  try {
    return JSON.stringify(value, null, indent);
  } catch (error) {
    if (!(error instanceof RangeError)) throw error;
    // Only JSON values (parsed bodies, records, dead letters) reach here; nothing else nests that deep.
    return stringifyDeep(value as Json);
  }
}

function stringifyDeep(root: Json): string {
  const out: string[] = [];
  // Either a value still to write or a piece of literal text (a separator, a closing bracket).
  const stack: ({ value: Json } | { text: string })[] = [{ value: root }];
  for (let entry = stack.pop(); entry !== undefined; entry = stack.pop()) {
    if ('text' in entry) {
      out.push(entry.text);
      continue;
    }
    const { value } = entry;
    if (value === null || typeof value !== 'object') {
      out.push(JSON.stringify(value));
    } else if (Array.isArray(value)) {
      out.push('[');
      stack.push({ text: ']' });
      for (let index = value.length - 1; index >= 0; index--) {
        stack.push({ value: value[index] ?? null });
        if (index > 0) stack.push({ text: ',' });
      }
    } else {
      out.push('{');
      stack.push({ text: '}' });
      const keys = Object.keys(value).filter((key) => value[key] !== undefined);
      for (let index = keys.length - 1; index >= 0; index--) {
        const key = keys[index] ?? '';
        stack.push({ value: value[key] ?? null });
        stack.push({ text: `${index > 0 ? ',' : ''}${JSON.stringify(key)}:` });
      }
    }
  }
  return out.join('');
}
