import { readdirSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { configDocument } from '../support/backfill-harness.js';
import { runCli } from '../support/cli-process.js';
import { simulatorScene } from '../support/simulator-scene.js';

const BUSINESS = 'biz-1';

/** Every key in the folder archive, as `<business>/<stream>/…`. */
function archivedKeys(root: string): string[] {
  return readdirSync(root, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => relative(root, join(entry.parentPath, entry.name)).split('\\').join('/'))
    .filter((key) => !key.startsWith('_callsync_tmp/'))
    .sort();
}

/** The calls' recording rows: id → state and key. */
function callRows(path: string): Map<string, { state: string; key: string | null }> {
  const db = new Database(path, { readonly: true });
  const rows = db.prepare(`select id, recording_state, recording_archive_key from recordings where stream = 'calls'`).all() as {
    id: string;
    recording_state: string;
    recording_archive_key: string | null;
  }[];
  db.close();
  return new Map(rows.map((row) => [row.id, { state: row.recording_state, key: row.recording_archive_key }]));
}

describe('recordings.deleteWithRecord over the simulator: backfill --recordings, deleted upstream, reconcile, archive pass', () => {
  const scene = simulatorScene('recordings-delete', {
    businesses: 1,
    calls: 60,
    voicemails: 0,
    numbers: 2,
    seed: 34,
    rateLimit: false,
    recordings: { size: { min: 1_024, max: 2_048 } },
  });

  it('keeps every recording while the guard holds, keeps them with the flag off, and removes exactly the deleted records’ with it on', async () => {
    const { simulator, directory, databasePath } = scene;
    const archive = join(directory, 'archive');
    const config = join(directory, 'callsync.json');
    const write = (deleteWithRecord: boolean): void => {
      const document = {
        ...configDocument(simulator, databasePath, { streams: ['calls'], pageSize: 50, rateLimit: false }),
        // Deletions below the guard's share wait for a second whole walk deleteAfter later: 1 ms here.
        reconcile: { deleteAfter: '1ms', maxDeleteShare: 0.1 },
        recordings: {
          archive: { type: 'folder', path: archive },
          deleteWithRecord,
          concurrency: 3,
          budget: { requestsPerMinute: 100_000, countAgainstApi: false },
        },
      };
      writeFileSync(config, JSON.stringify(document));
    };
    const cli = async (...args: string[]): Promise<number | null> => {
      const result = await runCli([...args, '--config', config]);
      expect(result.code === 0 || result.code === 1, `${args.join(' ')}: ${result.stderr}`).toBe(true);
      return result.code;
    };
    const archivePass = (): Promise<number | null> => cli('backfill', '--no-progress', '--recordings');

    write(true);
    expect(await archivePass()).toBe(0);
    const everything = archivedKeys(archive);
    const before = callRows(databasePath);
    const withRecording = [...before].filter(([, row]) => row.state === 'archived').map(([id]) => id);
    expect(withRecording.length).toBeGreaterThan(30);
    expect(everything).toHaveLength(withRecording.length * 2);

    // The guard refuses: upstream lists a third of the calls, so two thirds would go. Nothing is marked, nothing removed.
    simulator.setHostile({ listShare: 1 / 3 });
    await cli('reconcile', '--repair');
    await cli('reconcile', '--repair');
    simulator.setHostile({ listShare: 1 });
    expect(await archivePass()).toBe(0);
    expect(archivedKeys(archive)).toEqual(everything);

    // Three calls deleted upstream; two whole walks mark them deleted (under the share).
    const gone = withRecording.slice(5, 8);
    simulator.deleteCalls(BUSINESS, gone);
    await cli('reconcile', '--repair');
    expect(await cli('reconcile', '--repair')).toBe(0);
    const mirror = new Database(databasePath, { readonly: true });
    const deletedIds = (mirror.prepare(`select id from calls where deleted_at is not null order by id`).all() as { id: string }[]).map((row) => row.id);
    mirror.close();
    expect(deletedIds).toEqual([...gone].sort());

    // Off: kept.
    write(false);
    expect(await archivePass()).toBe(0);
    expect(archivedKeys(archive)).toEqual(everything);

    // On: exactly the three objects and their checksums go, and their rows say so.
    write(true);
    expect(await archivePass()).toBe(0);
    const goneKeys = gone.flatMap((id) => {
      const key = before.get(id)?.key ?? '';
      return [key, `${key}.sha256`];
    });
    expect(archivedKeys(archive)).toEqual(everything.filter((key) => !goneKeys.includes(key)));
    const after = callRows(databasePath);
    for (const id of gone) expect(after.get(id)?.state, id).toBe('deleted');
    expect([...after.values()].filter((row) => row.state === 'archived')).toHaveLength(withRecording.length - gone.length);
    const status = await runCli(['recordings', 'status', '--config', config]);
    expect(status.stdout).toContain('3 deleted with their records');
  });
});
