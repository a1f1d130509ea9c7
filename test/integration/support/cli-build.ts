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

/**
 * Packages left outside the bundle of {@link bundleCli}, loaded from `node_modules` as `dist/` loads them:
 * native addons (DuckDB's), the AWS SDK (loaded only for an S3 bucket; kept out so every start need not
 * parse it), and CommonJS packages that find files of their own through `__dirname` (pino's worker
 * scripts, msgpackr's prebuilt binary) or trim their own frames from a stack (undici's fetch).
 */
const UNBUNDLED = [
  'better-sqlite3',
  'pg-native',
  '@valkey/valkey-glide',
  'pino',
  'thread-stream',
  'msgpackr',
  'msgpackr-extract',
  'undici',
  '@duckdb/node-api',
  '@aws-sdk/client-s3',
];

/**
 * `require`, `__filename` and `__dirname` for the CommonJS packages inside the bundle. They name the
 * bundle, so code that reads them is not cut short; what still reads them (ioredis trims its own
 * frames from a stack only under `showFriendlyErrorStack`, BullMQ finds a sandboxed processor's child
 * script) is off in callsync.
 */
const COMMONJS_GLOBALS = [
  "import { createRequire as createRequireOfBundle } from 'node:module';",
  "import { dirname as dirnameOfBundle } from 'node:path';",
  "import { fileURLToPath as fileURLToPathOfBundle } from 'node:url';",
  'const require = createRequireOfBundle(import.meta.url);',
  'const __filename = fileURLToPathOfBundle(import.meta.url);',
  'const __dirname = dirnameOfBundle(__filename);',
].join(' ');

/** A program compiled to one file: `node <main>` runs it. */
export interface Bundle {
  readonly main: string;
  remove(): void;
}

/**
 * Compiles `callsync` into one ES module (its sources and the pure-JavaScript packages it imports) for
 * the integration suites, which spawn it some 170 times a run. Node 20 has no compile cache, and
 * resolving, reading and linking the modules of the file-by-file build cost a start about 1.6 s of CPU
 * (`check-config` of a one-business file); the bundle starts in about 0.6 s. Same sources, same
 * `node main.js`; the bench keeps {@link buildCli}, which is what `dist/` looks like.
 */
export function bundleCli(): Promise<Bundle> {
  return bundleProgram('src/entry/cli/main.ts');
}

/** Compiles the program whose entry is `entry` (relative to the checkout) into one ES module; see {@link bundleCli}. */
export async function bundleProgram(entry: string): Promise<Bundle> {
  const fromRoot = createRequire(join(ROOT, 'package.json'));
  const esbuild = createRequire(fromRoot.resolve('tsx'))('esbuild') as typeof Esbuild;
  const outdir = mkdtempSync(join(mkdirOutput(), 'bundle-'));
  const main = join(outdir, 'main.mjs');
  await esbuild.build({
    entryPoints: [join(ROOT, entry)],
    outfile: main,
    bundle: true,
    external: UNBUNDLED,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    banner: { js: COMMONJS_GLOBALS },
    tsconfig: join(ROOT, 'tsconfig.json'),
    logLevel: 'warning',
  });
  return { main, remove: () => rmSync(outdir, { recursive: true, force: true }) };
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
