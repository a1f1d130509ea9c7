import { describe, expect, it } from 'vitest';
import { jsonValue, parseJson } from './json-body.js';

describe('parseJson', () => {
  it('reads JSON', () => {
    expect(parseJson('{"a":[1,"x",null]}')).toEqual({ ok: true, value: { a: [1, 'x', null] } });
    expect(parseJson(' 0 ')).toEqual({ ok: true, value: 0 });
  });

  it('says an empty body is empty, not that it is null', () => {
    const body = parseJson(' \n');
    expect(body).toEqual({ ok: false, problem: 'empty', text: ' \n' });
    expect(jsonValue(body)).toBeUndefined();
  });

  it('says a body is not JSON, keeping its text, without throwing', () => {
    const body = parseJson('<html>bad gateway</html>');
    expect(body).toEqual({ ok: false, problem: 'not_json', text: '<html>bad gateway</html>' });
    expect(jsonValue(body)).toBeUndefined();
  });

  it('parses with the parser a service passes (the upstream keeps exact ids)', () => {
    const exact = (text: string): unknown => JSON.parse(text.replace(/(\d{17,})/g, '"$1"'));
    expect(jsonValue(parseJson('{"id":123456789012345678901}', exact))).toEqual({ id: '123456789012345678901' });
    expect(parseJson('{', exact)).toMatchObject({ ok: false, problem: 'not_json' });
  });
});
