import { runInThisContext } from 'node:vm';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { ENTER, instrument, RESUME, tracedFile } from './trace-plugin.js';

/** Runs instrumented TypeScript (types stripped), answering what it returned and the files entered, in order. */
function run(code: string, file: string): { value: unknown; entered: string[] } {
  const js = ts.transpileModule(instrument(ts, code, file), { compilerOptions: { target: ts.ScriptTarget.ES2022, module: ts.ModuleKind.None } }).outputText;
  const entered: string[] = [];
  const enter = (name: string): void => void entered.push(name);
  const resume = (name: string, value: unknown): unknown => (entered.push(`${name}:resumed`), value);
  const body = runInThisContext(`(function (${ENTER}, ${RESUME}) {\n${js}\n})`) as (onEnter: typeof enter, onResume: typeof resume) => unknown;
  const value = body(enter, resume);
  return { value, entered };
}

describe('the path trace instrumentation', () => {
  it('reports every function body on entry, arrows with an expression body too, and changes no result', () => {
    const code = [
      'class Box { constructor(private readonly n: number) {} get twice(): number { return this.n * 2; } add(m: number) { return this.n + m; } }',
      'const make = (n: number): Box => new Box(n);',
      'const shape = (n: number) => ({ n, inner: (k: number) => k + n });',
      'function sum(...xs: number[]): number { return xs.reduce((a, b) => a + b, 0); }',
      'return [make(1).twice, make(2).add(3), shape(4).inner(1), sum(1, 2, 3)];',
    ].join('\n');
    const { value, entered } = run(code, 'src/x.ts');
    expect(value).toEqual([2, 5, 5, 6]);
    // make, constructor, getter; make, constructor, add; shape, inner; sum and its reducer, once per number.
    expect(entered).toEqual(Array<string>(12).fill('src/x.ts'));
  });

  it('reports a generator resumed at each yield, as a consumer calling next() enters it again', () => {
    const code = [
      'function* pages(): Generator<number, void, number> { const a: number = yield 1; yield a + 1; }',
      'function* outer(): Generator<number> { yield* pages(); }',
      'const seen: number[] = []; const it = outer(); seen.push(it.next().value as number); seen.push(it.next(10).value as number); it.next();',
      'return seen;',
    ].join('\n');
    const { value, entered } = run(code, 'src/g.ts');
    expect(value).toEqual([1, 11]);
    expect(entered).toEqual(['src/g.ts', 'src/g.ts', 'src/g.ts:resumed', 'src/g.ts:resumed']);
  });

  it('writes no line break, so stack traces keep their line numbers', () => {
    const code = 'export function f(): number {\n  return 1;\n}\nexport const g = () =>\n  2;\n';
    expect(instrument(ts, code, 'src/f.ts').split('\n').length).toBe(code.split('\n').length);
  });

  it('traces the sources of src/ and connectors/ only, not their tests nor test code', () => {
    const root = new URL('../..', import.meta.url).pathname;
    expect(tracedFile(`${root}src/engine/sync/sync-stream.ts`)).toBe('src/engine/sync/sync-stream.ts');
    expect(tracedFile(`${root}connectors/sqlite/index.ts?v=1`)).toBe('connectors/sqlite/index.ts');
    expect(tracedFile(`${root}src/http/exchange.unit.test.ts`)).toBeUndefined();
    expect(tracedFile(`${root}test/support/bench-config.ts`)).toBeUndefined();
    expect(tracedFile(`${root}simulator/server.ts`)).toBeUndefined();
  });
});
