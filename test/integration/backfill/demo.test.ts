import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../support/cli-process.js';

describe('callsync demo (npm run demo)', () => {
  it('backfills three businesses from the in-process simulator, then resumes writing nothing', async () => {
    const database = join(mkdtempSync(join(tmpdir(), 'callsync-demo-')), 'demo.db');
    const first = await runCli(['demo', '--database', database, '--calls', '600', '--voicemails', '40']);
    expect(first.code, first.stderr).toBe(0);
    for (const business of ['biz-1', 'biz-2', 'biz-3']) {
      expect(first.stdout).toMatch(new RegExp(`calls\\s+${business}\\s+600\\b`));
      expect(first.stdout).toMatch(new RegExp(`voicemails\\s+${business}\\s+40\\b`));
    }
    expect(first.stdout).toContain(`sqlite3 ${database}`);
    const second = await runCli(['demo', '--database', database, '--calls', '600', '--voicemails', '40']);
    expect(second.code, second.stderr).toBe(0);
    const written = second.stdout
      .split('\n')
      .filter((line) => /^biz-\d\s+(calls|voicemails|numbers)\s+ok/.test(line))
      .map((line) => Number(line.split(/\s+/)[4]));
    expect(written).toEqual([0, 0, 0, 0, 0, 0, 0, 0, 0]);
  });
});
