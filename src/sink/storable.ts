import type { Batch, DeadLetter, Json, SyncRecord } from './sink.js';
import { jsonText } from './json-text.js';

declare global {
  interface String {
    /** ES2024, in Node since 20; false when the string holds a lone surrogate. */
    isWellFormed(): boolean;
    /** ES2024: lone surrogates replaced by U+FFFD. */
    toWellFormed(): string;
  }
}

/**
 * What no store can keep as received: the managed sink's check of every record before a part sees
 * it. Records that fail become dead letters naming the problem; the rest go on, each with its
 * `raw` as JSON text, made once here and stored as it is.
 */
export function splitStorable(batch: Batch, records: readonly SyncRecord[]): { storable: readonly SyncRecord[]; rawTexts: string[]; unstorable: DeadLetter[] } {
  let unstorable: DeadLetter[] | undefined;
  let storable: SyncRecord[] | undefined;
  const rawTexts: string[] = [];
  for (let index = 0; index < records.length; index++) {
    const record = records[index] as SyncRecord;
    const text = jsonText(record.raw);
    const reason = unstorableReason(record, text);
    if (reason === undefined) {
      rawTexts.push(text);
      storable?.push(record);
    } else {
      storable ??= records.slice(0, index);
      (unstorable ??= []).push({ businessId: batch.businessId, stream: batch.table.stream, reason, raw: record.raw });
    }
  }
  return { storable: storable ?? records, rawTexts, unstorable: unstorable ?? [] };
}

/** Deepest JSON nesting stored: SQLite's JSON functions stop at 1000 levels and `JSON.stringify` overflows the stack a few thousand levels down. */
const MAX_JSON_DEPTH = 1000;
/** Longest id in UTF-8 bytes: Postgres refuses primary-key entries over about 2.7 kB. */
const MAX_ID_BYTES = 1024;
/** Longest single string (a field, a value or key in `raw`), in UTF-16 code units. */
const MAX_STRING_CHARS = 16 * 1024 * 1024;

type Problem = 'depth' | 'surrogate' | 'size';

/**
 * JSON text shorter than this cannot nest {@link MAX_JSON_DEPTH} levels deep (every level takes
 * two characters) nor hold a string over {@link MAX_STRING_CHARS}.
 */
const SHALLOW_TEXT_CHARS = 2 * (MAX_JSON_DEPTH + 1);

/**
 * Why a record cannot be stored as received, or undefined when it can: JSON nested deeper than
 * {@link MAX_JSON_DEPTH}, a lone surrogate in any string (a database would store U+FFFD in its
 * place, silently changing the record), an id over {@link MAX_ID_BYTES} or a string over
 * {@link MAX_STRING_CHARS}. `rawText` is `record.raw` as JSON text: `JSON.stringify` writes a
 * lone surrogate as a `\udxxx` escape and a paired one as it is, so short text without `\ud` is
 * storable as it stands, and only other records are walked. Pure; safe at any depth (the walk
 * never descends past the limit).
 */
function unstorableReason(record: SyncRecord, rawText: string): string | undefined {
  if (!record.id.isWellFormed()) return 'id: lone surrogate in the id';
  // A UTF-16 code unit is at most 3 UTF-8 bytes: short ids need no count.
  const idBytes = record.id.length * 3 <= MAX_ID_BYTES ? 0 : Buffer.byteLength(record.id);
  if (idBytes > MAX_ID_BYTES) return `id: ${idBytes} bytes, more than ${MAX_ID_BYTES}`;
  for (const name in record.fields) {
    const value = record.fields[name];
    const problem = typeof value === 'string' ? stringProblem(value) : undefined;
    if (problem !== undefined) return `${name}: ${describe(problem)}`;
  }
  if (rawText.length < SHALLOW_TEXT_CHARS && !rawText.includes('\\ud')) return undefined;
  if (firstProblem(record.raw) === undefined) return undefined;
  const { problem, path } = locate(record.raw);
  return `raw${path}: ${describe(problem)}`;
}

function describe(problem: Problem): string {
  if (problem === 'depth') return `JSON nested deeper than ${MAX_JSON_DEPTH} levels`;
  if (problem === 'surrogate') return 'lone surrogate in a string (not valid Unicode)';
  return `string longer than ${MAX_STRING_CHARS} characters`;
}

function stringProblem(value: string): Problem | undefined {
  if (value.length > MAX_STRING_CHARS) return 'size';
  return value.isWellFormed() ? undefined : 'surrogate';
}

/**
 * The walk, for records whose text does not settle it: no paths kept. Recursive, which is safe: it stops at
 * {@link MAX_JSON_DEPTH} frames, and it is markedly cheaper than an explicit stack.
 */
function firstProblem(value: Json, depth = 0): Problem | undefined {
  if (typeof value === 'string') return stringProblem(value);
  if (value === null || typeof value !== 'object') return undefined;
  if (depth >= MAX_JSON_DEPTH) return 'depth';
  if (Array.isArray(value)) {
    for (const item of value) {
      const problem = firstProblem(item, depth + 1);
      if (problem !== undefined) return problem;
    }
    return undefined;
  }
  for (const key in value) {
    const problem = stringProblem(key) ?? firstProblem(value[key] as Json, depth + 1);
    if (problem !== undefined) return problem;
  }
  return undefined;
}

const MAX_PATH_CHARS = 80;

/** The slow pass, only for a record already known bad: where the first problem is, as `.a[2].b`. */
function locate(raw: Json): { problem: Problem; path: string } {
  const stack: [Json, number, string][] = [[raw, 0, '']];
  for (let entry = stack.pop(); entry !== undefined; entry = stack.pop()) {
    const [value, depth, path] = entry;
    if (typeof value === 'string') {
      const problem = stringProblem(value);
      if (problem !== undefined) return { problem, path: shorten(path) };
    } else if (value !== null && typeof value === 'object') {
      if (depth >= MAX_JSON_DEPTH) return { problem: 'depth', path: '' };
      const children: [string, Json][] = Array.isArray(value)
        ? value.map((item, index) => [`[${index}]`, item])
        : Object.entries(value).map(([key, item]) => [`.${key}`, item]);
      for (const [step, item] of children) {
        const problem = stringProblem(step);
        if (problem !== undefined) return { problem, path: shorten(path) };
        stack.push([item, depth + 1, path.length > MAX_PATH_CHARS ? path : path + step]);
      }
    }
  }
  return { problem: 'depth', path: '' };
}

function shorten(path: string): string {
  // The path may quote the very key that is malformed or huge; keep it short and well formed.
  const cut = path.length > MAX_PATH_CHARS ? `${path.slice(0, MAX_PATH_CHARS)}…` : path;
  return cut.toWellFormed();
}
