import { describe, expect, it } from 'vitest';
import { parseDurationMs } from './duration.js';
import { parseConfigText } from './parse-text.js';

describe('parseConfigText', () => {
  it('parses YAML 1.2 (no yes/no booleans) and JSON by extension', () => {
    expect(parseConfigText('a: on\nb: [1, 2]\n', 'c.yml')).toEqual({ ok: true, value: { a: 'on', b: [1, 2] } });
    expect(parseConfigText('{"a": [1, 2]}', 'c.JSON')).toEqual({ ok: true, value: { a: [1, 2] } });
  });

  it.each([
    ['c.yaml', 'a: 1\nb: [1, 2\nc: 3\n', { line: 3, column: 1 }, 'invalid YAML: '],
    ['c.yaml', 'a: 1\na: 2\n', { line: 2, column: 1 }, 'invalid YAML: Map keys must be unique'],
    ['c.json', '{"a": 1,\n "b": oops}', { line: 2, column: 7 }, 'invalid JSON: '],
  ])('%s syntax error names the line: %j', (file, text, position, message) => {
    const result = parseConfigText(text, file);
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.problems[0]).toMatchObject({ path: '', ...position, message: expect.stringContaining(message) as unknown });
  });

  it('does not quote the offending text, which may hold a secret', () => {
    const result = parseConfigText('{"apiKey": sk_live_123}', 'c.json');
    expect(JSON.stringify(result)).not.toContain('sk_live_123');
  });

  it.each([
    ['', 'c.yaml', 'the file is empty'],
    ['# only a comment\n', 'c.yaml', 'the file is empty'],
    ['null', 'c.json', 'the file is empty'],
    ['a: 1', 'c.toml', 'unsupported file type (expected .yaml, .yml or .json)'],
  ])('%j in %s: %s', (text, file, message) => {
    expect(parseConfigText(text, file)).toEqual({ ok: false, problems: [{ path: '', message }] });
  });
});

describe('parseDurationMs', () => {
  it.each<[string | number, number | undefined]>([
    ['250ms', 250],
    ['60s', 60_000],
    ['5m', 300_000],
    ['1.5h', 5_400_000],
    [' 2 s ', 2000],
    [1500, 1500],
    [0, undefined],
    [-5, undefined],
    [1.5, undefined],
    ['0s', undefined],
    ['10', undefined],
    ['1d', undefined],
    ['0.1ms', undefined],
  ])('%j → %j', (input, expected) => {
    expect(parseDurationMs(input)).toBe(expected);
  });
});
