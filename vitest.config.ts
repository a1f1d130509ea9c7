import { defineConfig } from 'vitest/config';
import { pathTracePlugin } from './test/path/trace-plugin.js';

export default defineConfig({
  test: {
    projects: [
      {
        test: {
          name: 'unit',
          include: ['src/**/*.unit.test.ts', 'connectors/**/*.unit.test.ts', 'simulator/**/*.unit.test.ts', 'test/unit/**/*.test.ts', 'test/docs/**/*.test.ts'],
          testTimeout: 10_000,
        },
      },
      {
        test: {
          name: 'integration',
          include: ['test/integration/**/*.test.ts', 'test/e2e/**/*.test.ts', 'connectors/**/*.integration.test.ts'],
          globalSetup: ['test/integration/global-setup.ts'],
          testTimeout: 120_000,
          hookTimeout: 60_000,
          // Tests share two cores; the big end-to-end suites measure throughput and must not starve each other.
          fileParallelism: false,
        },
      },
      {
        // Every function of src/ and connectors/ reports its file on entry: the record's path, stage by stage.
        plugins: [pathTracePlugin()],
        test: {
          name: 'path',
          include: ['test/path/**/*.test.ts'],
          setupFiles: ['test/path/trace-setup.ts'],
          testTimeout: 120_000,
          hookTimeout: 60_000,
          fileParallelism: false,
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
