/**
 * The slice of SOQL and SOSL the fake understands, from Salesforce's "SOQL and SOSL Reference":
 * `SELECT f, … FROM Object [WHERE cond] [ORDER BY f [ASC|DESC]] [LIMIT n]` where `cond` combines
 * `field = | != | LIKE value` and `field IN (values)` with AND, OR and parentheses (AND binds
 * tighter); LIKE takes `%` (any run) and `_` (one character), case-insensitively; string
 * literals in single quotes with backslash escapes. And `FIND {term [OR term]…} IN PHONE FIELDS
 * RETURNING Object(f, …), …`. Anything else is `MALFORMED_QUERY` / `MALFORMED_SEARCH`, as
 * Salesforce answers what it cannot parse.
 */

export type Scalar = string | number | boolean | null;

export type Condition =
  | { readonly op: 'and' | 'or'; readonly left: Condition; readonly right: Condition }
  | { readonly op: '=' | '!=' | 'like'; readonly field: string; readonly value: Scalar }
  | { readonly op: 'in'; readonly field: string; readonly values: readonly Scalar[] };

export interface SoqlQuery {
  readonly fields: readonly string[];
  readonly object: string;
  readonly where: Condition | undefined;
  readonly orderBy: { readonly field: string; readonly descending: boolean } | undefined;
  readonly limit: number | undefined;
}

export interface SoslSearch {
  readonly terms: readonly string[];
  readonly group: string;
  readonly returning: readonly { readonly object: string; readonly fields: readonly string[] }[];
}

export class QuerySyntaxError extends Error {}

type Token = { kind: 'word'; text: string } | { kind: 'string'; text: string } | { kind: 'punct'; text: string };

const WORD = /[A-Za-z0-9_.\-+:]+/y;

function tokenize(text: string): Token[] {
  const tokens: Token[] = [];
  let index = 0;
  while (index < text.length) {
    const char = text[index] ?? '';
    if (/\s/.test(char)) {
      index += 1;
    } else if (char === "'") {
      let value = '';
      index += 1;
      while (index < text.length && text[index] !== "'") {
        if (text[index] === '\\') index += 1;
        value += text[index] ?? '';
        index += 1;
      }
      if (index >= text.length) throw new QuerySyntaxError('unterminated string literal');
      index += 1;
      tokens.push({ kind: 'string', text: value });
    } else if (char === '!' && text[index + 1] === '=') {
      tokens.push({ kind: 'punct', text: '!=' });
      index += 2;
    } else if ('(),='.includes(char)) {
      tokens.push({ kind: 'punct', text: char });
      index += 1;
    } else {
      // Sticky, so a long statement is not copied at every token.
      WORD.lastIndex = index;
      const match = WORD.exec(text);
      if (match === null) throw new QuerySyntaxError(`unexpected token '${char}'`);
      tokens.push({ kind: 'word', text: match[0] });
      index += match[0].length;
    }
  }
  return tokens;
}

class Parser {
  #position = 0;
  constructor(readonly tokens: Token[]) {}

  peekWord(word: string): boolean {
    const token = this.tokens[this.#position];
    return token?.kind === 'word' && token.text.toUpperCase() === word;
  }

  peekPunct(punct: string): boolean {
    const token = this.tokens[this.#position];
    return token?.kind === 'punct' && token.text === punct;
  }

  word(expected?: string): string {
    const token = this.tokens[this.#position];
    if (token?.kind !== 'word' || (expected !== undefined && token.text.toUpperCase() !== expected)) {
      throw new QuerySyntaxError(`expected ${expected ?? 'an identifier'} at token ${this.#position + 1}`);
    }
    this.#position += 1;
    return token.text;
  }

  punct(expected: string): void {
    if (!this.peekPunct(expected)) throw new QuerySyntaxError(`expected '${expected}' at token ${this.#position + 1}`);
    this.#position += 1;
  }

  value(): Scalar {
    const token = this.tokens[this.#position];
    this.#position += 1;
    if (token?.kind === 'string') return token.text;
    if (token?.kind === 'word') {
      const upper = token.text.toUpperCase();
      if (upper === 'NULL') return null;
      if (upper === 'TRUE' || upper === 'FALSE') return upper === 'TRUE';
      if (/^-?\d+(\.\d+)?$/.test(token.text)) return Number(token.text);
    }
    throw new QuerySyntaxError(`expected a literal at token ${this.#position}`);
  }

  done(): boolean {
    return this.#position >= this.tokens.length;
  }

  condition(): Condition {
    let left = this.conjunction();
    while (this.peekWord('OR')) {
      this.word('OR');
      left = { op: 'or', left, right: this.conjunction() };
    }
    return left;
  }

  conjunction(): Condition {
    let left = this.comparison();
    while (this.peekWord('AND')) {
      this.word('AND');
      left = { op: 'and', left, right: this.comparison() };
    }
    return left;
  }

  comparison(): Condition {
    if (this.peekPunct('(')) {
      this.punct('(');
      const inner = this.condition();
      this.punct(')');
      return inner;
    }
    const field = this.word();
    if (this.peekWord('IN')) {
      this.word('IN');
      this.punct('(');
      const values: Scalar[] = [this.value()];
      while (this.peekPunct(',')) {
        this.punct(',');
        values.push(this.value());
      }
      this.punct(')');
      return { op: 'in', field, values };
    }
    if (this.peekWord('LIKE')) {
      this.word('LIKE');
      return { op: 'like', field, value: this.value() };
    }
    if (this.peekPunct('=')) {
      this.punct('=');
      return { op: '=', field, value: this.value() };
    }
    this.punct('!=');
    return { op: '!=', field, value: this.value() };
  }
}

export function parseSoql(text: string): SoqlQuery {
  const parser = new Parser(tokenize(text));
  parser.word('SELECT');
  const fields = [parser.word()];
  while (parser.peekPunct(',')) {
    parser.punct(',');
    fields.push(parser.word());
  }
  parser.word('FROM');
  const object = parser.word();
  let where: Condition | undefined;
  if (parser.peekWord('WHERE')) {
    parser.word('WHERE');
    where = parser.condition();
  }
  let orderBy: SoqlQuery['orderBy'];
  if (parser.peekWord('ORDER')) {
    parser.word('ORDER');
    parser.word('BY');
    const field = parser.word();
    let descending = false;
    if (parser.peekWord('ASC')) parser.word('ASC');
    else if (parser.peekWord('DESC')) {
      parser.word('DESC');
      descending = true;
    }
    orderBy = { field, descending };
  }
  let limit: number | undefined;
  if (parser.peekWord('LIMIT')) {
    parser.word('LIMIT');
    const value = parser.value();
    if (typeof value !== 'number') throw new QuerySyntaxError('LIMIT takes a number');
    limit = value;
  }
  if (!parser.done()) throw new QuerySyntaxError('unexpected text after the query');
  return { fields, object, where, orderBy, limit };
}

/** Field lookup is case-insensitive in SOQL. */
function fieldOf(record: Readonly<Record<string, unknown>>, field: string): unknown {
  const key = Object.keys(record).find((name) => name.toLowerCase() === field.toLowerCase());
  return key === undefined ? null : record[key];
}

const compiled = new Map<string, RegExp>();

export function likePattern(pattern: string): RegExp {
  const known = compiled.get(pattern);
  if (known !== undefined) return known;
  if (compiled.size > 10_000) compiled.clear();
  const regex = likeRegex(pattern);
  compiled.set(pattern, regex);
  return regex;
}

function likeRegex(pattern: string): RegExp {
  const body = [...pattern].map((char) => (char === '%' ? '.*' : char === '_' ? '.' : char.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))).join('');
  return new RegExp(`^${body}$`, 'is');
}

export function matches(record: Readonly<Record<string, unknown>>, condition: Condition): boolean {
  switch (condition.op) {
    case 'and':
      return matches(record, condition.left) && matches(record, condition.right);
    case 'or':
      return matches(record, condition.left) || matches(record, condition.right);
    case 'in':
      return condition.values.some((value) => same(fieldOf(record, condition.field), value));
    case 'like': {
      const value = fieldOf(record, condition.field);
      return typeof value === 'string' && typeof condition.value === 'string' && likePattern(condition.value).test(value);
    }
    case '=':
      return same(fieldOf(record, condition.field), condition.value);
    case '!=':
      return !same(fieldOf(record, condition.field), condition.value);
  }
}

function same(actual: unknown, expected: Scalar): boolean {
  if (expected === null) return actual === null || actual === undefined;
  // Text comparison in SOQL is case-insensitive.
  if (typeof actual === 'string' && typeof expected === 'string') return actual.toLowerCase() === expected.toLowerCase();
  return actual === expected;
}

export function selectFields(record: Readonly<Record<string, unknown>>, fields: readonly string[]): Record<string, unknown> {
  return Object.fromEntries(fields.map((field) => [field, fieldOf(record, field) ?? null]));
}

/** `FIND {a OR b} IN PHONE FIELDS RETURNING Contact(Id, Phone), Lead(Id)`. */
export function parseSosl(text: string): SoslSearch {
  const found = /^\s*FIND\s*\{([^}]*)\}\s*(?:IN\s+(\w+)\s+FIELDS\s*)?RETURNING\s+(.+)$/is.exec(text);
  if (found === null) throw new QuerySyntaxError('expected FIND {…} [IN … FIELDS] RETURNING …');
  const terms = (found[1] ?? '')
    .split(/\s+OR\s+/i)
    .map((term) => term.trim().replace(/^"|"$/g, ''))
    .filter((term) => term !== '');
  const returning: { object: string; fields: string[] }[] = [];
  const spec = /\s*(\w+)\s*(?:\(([^)]*)\))?\s*(?:,|$)/gy;
  const list = found[3] ?? '';
  let match: RegExpExecArray | null;
  while (spec.lastIndex < list.length && (match = spec.exec(list)) !== null) {
    returning.push({
      object: match[1] ?? '',
      fields: (match[2] ?? 'Id')
        .split(',')
        .map((field) => field.trim())
        .filter((field) => field !== ''),
    });
  }
  if (terms.length === 0 || returning.length === 0) throw new QuerySyntaxError('empty search term or RETURNING list');
  return { terms, group: (found[2] ?? 'ALL').toUpperCase(), returning };
}
