import { defineConfig } from 'vitest/config';
import { BaseSequencer, type TestSpecification } from 'vitest/node';
import { pathTracePlugin } from './test/path/trace-plugin.js';

/**
 * Every integration file keeps to its own Redis prefix, Postgres, MariaDB and ClickHouse database
 * and schema, temporary directory and free ports (the two blocks on port 4010 share
 * backfill/quick-start.test.ts), and waits on what happened rather than on the clock, so all of
 * them run side by side.
 */
const INTEGRATION = ['test/integration/**/*.test.ts', 'test/e2e/**/*.test.ts', 'connectors/**/*.integration.test.ts'];

/**
 * The projects of a group in the order their files start (within one, vitest's order: the longest
 * of the last run first, else the largest file). The checks take longest; the path files wait on
 * the instrumenting transform, done once in vitest's own process, so they start while it is idle;
 * the unit files' few long ones go before the integration files, whose many short ones fill the end.
 */
const START_ORDER = ['checks', 'path', 'unit', 'integration'];

class StartOrder extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const rank = (spec: TestSpecification): number => {
      const at = START_ORDER.indexOf(spec.project.name);
      return at < 0 ? START_ORDER.length : at;
    };
    const sorted = await super.sort(files);
    return sorted
      .map((spec, index) => ({ spec, index }))
      .sort((a, b) => rank(a.spec) - rank(b.spec) || a.index - b.index)
      .map(({ spec }) => spec);
  }
}

/**
 * Files of checks, unit, integration and path share one pool of this many workers (projects run
 * together only with one count). Two cores: the checks take one worker, and an integration file
 * spends much of its time waiting on a child process, Redis, Postgres or a server of its own, so
 * three more keep both cores busy.
 */
const WORKERS = 4;

/**
 * No fresh module graph per file: a worker imports the sources and packages once for all the files
 * it runs (with a graph per file the unit project took 105 s of CPU, with one per worker 29 s; the
 * integration files about 60 s more). The files keep their state in what they create (no test
 * mocks a module); spies are restored after each test.
 */
const REUSE_MODULES = { isolate: false, restoreMocks: true };

const integration = {
  globalSetup: ['test/integration/global-setup.ts'],
  testTimeout: 120_000,
  hookTimeout: 60_000,
};

export default defineConfig({
  test: {
    sequence: { sequencer: StartOrder },
    projects: [
      {
        test: {
          // npm run typecheck and npm run lint, as files of the run (test/checks/).
          name: 'checks',
          include: ['test/checks/**/*.test.ts'],
          testTimeout: 600_000,
          maxWorkers: WORKERS,
        },
      },
      {
        test: {
          name: 'unit',
          include: ['src/**/*.unit.test.ts', 'connectors/**/*.unit.test.ts', 'simulator/**/*.unit.test.ts', 'test/unit/**/*.test.ts', 'test/docs/**/*.test.ts'],
          // A guard against a hang: the property tests take seconds of CPU, more beside the other workers.
          testTimeout: 30_000,
          maxWorkers: WORKERS,
          ...REUSE_MODULES,
        },
      },
      {
        test: {
          name: 'integration',
          include: INTEGRATION,
          ...integration,
          maxWorkers: WORKERS,
          ...REUSE_MODULES,
        },
      },
      {
        // Every function of src/ and connectors/ reports its file on entry: the record's path, stage by stage.
        plugins: [pathTracePlugin()],
        test: {
          name: 'path',
          include: ['test/path/**/*.test.ts'],
          // The Postgres path runs in its worker's database, which the integration setup creates.
          globalSetup: ['test/integration/global-setup.ts'],
          setupFiles: ['test/path/trace-setup.ts'],
          testTimeout: 120_000,
          hookTimeout: 60_000,
          maxWorkers: WORKERS,
        },
      },
      {
        test: {
          // Reliability and security proof (`npm run test:chaos`); not part of `npm test`.
          name: 'chaos',
          include: ['test/chaos/**/*.test.ts'],
          globalSetup: ['test/integration/global-setup.ts', 'test/chaos/global-setup.ts'],
          testTimeout: 240_000,
          hookTimeout: 120_000,
          fileParallelism: false,
        },
      },
      {
        test: {
          // The image in CI (`npm run test:container` builds it first); not part of `npm test`.
          name: 'container',
          include: ['test/container/**/*.test.ts'],
          testTimeout: 600_000,
          // Removing a container copies nothing but deletes a whole root file system (vfs): ~20 s loaded.
          hookTimeout: 300_000,
        },
      },
    ],
  },
});
