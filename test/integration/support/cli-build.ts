import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import type * as Esbuild from 'esbuild';

const ROOT = join(import.meta.dirname, '../../..');

export interface CliBuild {
  /** `src/entry/cli/main.js` of the build: what `node` runs as `callsync`. */
  readonly main: string;
  /** Where the build's tree begins: `<root>/test/bench/x.js` for a compiled `test/bench/x.ts`. */
  readonly root: string;
  remove(): void;
}

/**
 * Compiles `src/`, `connectors/` and `simulator/` (and any other `dirs`, such as the bench's child scripts) to plain
 * ESM JavaScript once per test run, file by file, so every spawned `callsync` starts as the shipped
 * `dist/` does: `node main.js`. Through `--import tsx` each start spent about 0.8 s more CPU compiling
 * and resolving, and the suites spawn dozens of them. The build lives inside the checkout so packages
 * resolve from its `node_modules`.
 */
export async function buildCli(dirs: readonly string[] = ['src', 'connectors', 'simulator']): Promise<CliBuild> {
  // esbuild is the compiler tsx itself runs on; reaching it through tsx keeps one declared dependency.
  const fromRoot = createRequire(join(ROOT, 'package.json'));
  const esbuild = createRequire(fromRoot.resolve('tsx'))('esbuild') as typeof Esbuild;
  const outdir = mkdtempSync(join(mkdirOutput(), 'cli-build-'));
  const entryPoints = dirs.flatMap((dir) =>
    readdirSync(join(ROOT, dir), { recursive: true, encoding: 'utf8' })
      .filter((file) => file.endsWith('.ts') && !file.endsWith('.test.ts'))
      .map((file) => join(ROOT, dir, file)),
  );
  await esbuild.build({ entryPoints, outdir, outbase: ROOT, format: 'esm', platform: 'node', tsconfig: join(ROOT, 'tsconfig.json'), logLevel: 'warning' });
  writeFileSync(join(outdir, 'package.json'), '{ "type": "module" }\n');
  return { main: join(outdir, 'src/entry/cli/main.js'), root: outdir, remove: () => rmSync(outdir, { recursive: true, force: true }) };
}

function mkdirOutput(): string {
  const dir = join(ROOT, 'test-output');
  mkdirSync(dir, { recursive: true });
  return dir;
}

declare module 'vitest' {
  export interface ProvidedContext {
    /** {@link CliBuild.main} of this test run, provided by the integration global setup. */
    callsyncMain: string;
  }
}
