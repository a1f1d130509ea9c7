import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT, SHIPPED_NODE_FLAGS } from '../support/child-process.js';

const read = (file: string): string => readFileSync(join(REPO_ROOT, file), 'utf8');

// The memory figures run their children with SHIPPED_NODE_FLAGS, so they measure what users run only
// while the bin and the image carry the same flags.
describe('the V8 flags callsync ships with', () => {
  it('are on the bin’s shebang, which node reads before any code runs', () => {
    const shebang = read('src/entry/cli/main.ts').split('\n', 1)[0]!;
    expect(shebang).toBe(`#!/usr/bin/env -S node ${SHIPPED_NODE_FLAGS.join(' ')}`);
  });

  it('are in the image’s CMD, before the script', () => {
    const cmd = read('Dockerfile')
      .split('\n')
      .filter((line) => line.startsWith('CMD '))
      .at(-1);
    const argv = JSON.parse(cmd!.slice('CMD '.length)) as string[];
    expect(argv.slice(0, 1 + SHIPPED_NODE_FLAGS.length)).toEqual(['node', ...SHIPPED_NODE_FLAGS]);
    expect(argv[1 + SHIPPED_NODE_FLAGS.length]).toBe('dist/src/entry/cli/main.js');
  });
});
