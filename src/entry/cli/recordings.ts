import type { Command } from 'commander';
import { openRecordingState, type RecordingState, type RecordingStateStore } from '../../../connectors/recordings/index.js';
import { createRedactor, outsideText } from '../../base/redact/index.js';
import { jsonText } from '../../sink/json-text.js';
import { createLogger } from './common/logger.js';
import { formatTable } from './common/text-table.js';
import { loadCliConfig } from './load-cli-config.js';
import { bytesText, recordingsSection, setupFailureSaid } from './recordings/archive-run.js';

interface StatusFlags {
  readonly config: string;
  readonly limit: string;
  readonly json?: boolean;
}

interface RetryFlags {
  readonly config: string;
  readonly expired?: boolean;
}

const REASON_WIDTH = 80;

/** Opens the archive's state for one operator command and closes it afterwards. */
async function withState<T>(file: string, use: (state: RecordingStateStore, redact: (text: string) => string) => Promise<T>): Promise<T> {
  const { config, secrets } = await loadCliConfig(file);
  recordingsSection(config, file);
  const state = await setupFailureSaid(file, () => openRecordingState(config.sink, createLogger({ level: 'warn', secrets })));
  try {
    return await use(state, createRedactor(secrets));
  } finally {
    await state.close();
  }
}

/** `callsync recordings status|retry`: what the archive holds, what is pending, expired or failed, and another go. */
export function registerRecordingsCommand(program: Command): void {
  const group = program.command('recordings').description('the recordings archive: what is archived, pending, expired or failed');

  group
    .command('status')
    .description('count recordings by business, stream and state, then list the expired and failed ones with their reasons')
    .requiredOption('-c, --config <file>', 'YAML or JSON config file')
    .option('--limit <n>', 'list at most this many expired or failed recordings', '20')
    .option('--json', 'one JSON document instead of tables')
    .action((flags: StatusFlags) =>
      withState(flags.config, async (state, redact) => {
        const counts = await state.counts();
        const problems = await state.list(['expired', 'failed'], Number(flags.limit));
        if (flags.json === true) return void process.stdout.write(`${outsideText(jsonText({ counts, problems }, 2), redact)}\n`);
        if (counts.length === 0) return void process.stdout.write('no recordings yet: run backfill --recordings\n');
        const rows = counts.map((count) => [
          count.businessId,
          count.stream,
          count.state,
          count.count,
          count.state === 'archived' ? bytesText(count.bytes) : '',
        ]);
        process.stdout.write(`${formatTable(['business', 'stream', 'state', 'recordings', 'bytes'], rows)}\n`);
        const total = (wanted: RecordingState): number => counts.filter((count) => count.state === wanted).reduce((sum, count) => sum + count.count, 0);
        const deleted = total('deleted') > 0 ? `, ${total('deleted')} deleted with their records` : '';
        process.stdout.write(
          `\n${total('archived')} archived, ${total('pending')} pending, ${total('expired')} expired, ${total('failed')} failed${deleted}\n`,
        );
        if (problems.length === 0) return;
        const listed = problems.map((row) => [
          row.businessId,
          row.stream,
          row.id,
          row.state,
          row.attempts,
          outsideText((row.reason ?? '').replace(/\s+/g, ' '), redact, REASON_WIDTH),
        ]);
        process.stdout.write(`\n${formatTable(['business', 'stream', 'id', 'state', 'attempts', 'reason'], listed)}\n`);
      }),
    );

  group
    .command('retry')
    .description('put failed recordings (and with --expired, expired ones) back to pending; the next backfill --recordings archives them')
    .requiredOption('-c, --config <file>', 'YAML or JSON config file')
    .option('--expired', 'expired recordings too (worth it once upstream hands out fresh links)')
    .action((flags: RetryFlags) =>
      withState(flags.config, async (state) => {
        const states: RecordingState[] = flags.expired === true ? ['failed', 'expired'] : ['failed'];
        const count = await state.requeue(states, new Date().toISOString());
        process.stdout.write(`${count} recording${count === 1 ? '' : 's'} (${states.join(', ')}) back to pending: run backfill --recordings to archive them\n`);
      }),
    );
}
