import { relative, resolve } from 'node:path';
import type ts from 'typescript';
import type { Plugin } from 'vitest/config';

/** The repository root, whatever directory vitest runs from. */
const ROOT = resolve(import.meta.dirname, '../..');

/** The global an instrumented function calls first thing, with its file. */
export const ENTER = '__callsyncPathEnter';
/** The global a generator calls when a consumer's `next()` resumes it at a `yield` (an entry too). */
export const RESUME = '__callsyncPathResume';

interface Edit {
  readonly at: number;
  readonly text: string;
  /** An opening is written before what starts at `at`; a closing after what ends there. */
  readonly closes: boolean;
  readonly order: number;
}

/**
 * `code` with a call to `ENTER(file)` at the start of every function body (a function, a method,
 * an accessor, a constructor, an arrow, whose expression body becomes `(ENTER(file), body)`), and
 * every `yield` wrapped in `RESUME(file, yield …)`. Only text is inserted, never a line break, so
 * line numbers in stack traces stay true. The compiler is passed in, so that loading this file
 * (every vitest run loads the config that names the plugin) does not load it.
 */
export function instrument(typescript: typeof ts, code: string, file: string): string {
  const source = typescript.createSourceFile(file, code, typescript.ScriptTarget.Latest, true, typescript.ScriptKind.TS);
  const tag = JSON.stringify(file);
  const edits: Edit[] = [];
  const wrap = (node: ts.Node, open: string, close: string): void => {
    edits.push({ at: node.getStart(source), text: open, closes: false, order: edits.length });
    edits.push({ at: node.getEnd(), text: close, closes: true, order: edits.length });
  };
  const visit = (node: ts.Node): void => {
    if (typescript.isFunctionLike(node) && 'body' in node && node.body !== undefined) {
      const body: ts.Node = node.body;
      if (typescript.isBlock(body)) edits.push({ at: body.getStart(source) + 1, text: `${ENTER}(${tag});`, closes: false, order: edits.length });
      else wrap(body, `(${ENTER}(${tag}), `, ')');
    }
    // `yield*` hands the consumer's `next()` to the inner generator, which records its own resumption.
    if (typescript.isYieldExpression(node) && node.asteriskToken === undefined) wrap(node, `${RESUME}(${tag}, `, ')');
    node.forEachChild(visit);
  };
  visit(source);
  // At one offset, what closes there is written first (innermost first), then what opens (outermost first).
  edits.sort((a, b) => a.at - b.at || Number(b.closes) - Number(a.closes) || (a.closes ? b.order - a.order : a.order - b.order));
  let out = '';
  let from = 0;
  for (const edit of edits) {
    out += code.slice(from, edit.at) + edit.text;
    from = edit.at;
  }
  return out + code.slice(from);
}

/** The project file a module id names when it is one the path traces (src/ and connectors/, no tests), else undefined. */
export function tracedFile(id: string): string | undefined {
  const file = relative(ROOT, id.split('?')[0] ?? id);
  return /^(src|connectors)\/.*\.ts$/.test(file) && !file.endsWith('.test.ts') ? file : undefined;
}

/** A Vite plugin that instruments the project's own sources before esbuild strips their types. */
export function pathTracePlugin(): Plugin {
  return {
    name: 'callsync-path-trace',
    enforce: 'pre',
    async transform(code, id) {
      const file = tracedFile(id);
      if (file === undefined) return undefined;
      const typescript = (await import('typescript')).default;
      // Only inserted text: lines keep their numbers, so the original map is close enough for a stack trace.
      return { code: instrument(typescript, code, file), map: null };
    },
  };
}
