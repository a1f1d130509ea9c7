import type { Command } from 'commander';
import { jsonText } from '../../sink/json-text.js';
import { createSink } from '../../../connectors/registry.js';
import { createRedactor, outsideText, type Redact } from '../../base/redact/index.js';
import type { StoredDeadLetter } from '../../sink/sink.js';
import { planBusinesses } from '../../engine/sync/plan-businesses.js';
import { replayDeadLetters } from '../../engine/sync/replay-dead-letters.js';
import { using } from './failure/explain.js';
import { planTables } from './failure/preflight.js';
import { sinkTarget } from './failure/targets.js';
import { loadCliConfig } from './load-cli-config.js';
import { createLogger } from './common/logger.js';
import { formatTable } from './common/text-table.js';

interface FilterFlags {
  readonly config: string;
  readonly business?: string;
  readonly stream?: string;
  readonly limit: string;
  readonly json?: boolean;
}

const REASON_WIDTH = 80;

/** Opens the configured sink for one operator command and closes it afterwards. */
async function withSink<T>(file: string, use: (context: Awaited<ReturnType<typeof open>>) => Promise<T>): Promise<T> {
  const context = await open(file);
  try {
    return await use(context);
  } finally {
    await context.sink.close();
  }
}

async function open(file: string) {
  const { config, secrets } = await loadCliConfig(file);
  // "sink opened" lines would sit above the table: only problems are logged here.
  const logger = createLogger({ level: 'warn', secrets });
  const sink = await using(sinkTarget(config.sink), () => createSink(config.sink, { logger }));
  return { config, sink, redact: createRedactor(secrets) };
}

/** A reason quotes upstream text: scrubbed and stripped of control characters before the cut, on one line. */
function reasonText(reason: string, redact: Redact): string {
  return outsideText(reason.replace(/\s+/g, ' '), redact, REASON_WIDTH);
}

function list(context: Awaited<ReturnType<typeof open>>, flags: FilterFlags): Promise<StoredDeadLetter[]> {
  return context.sink.deadLetters.list({ businessId: flags.business, stream: flags.stream, limit: Number(flags.limit) });
}

function filters(command: Command): Command {
  return command
    .requiredOption('-c, --config <file>', 'YAML or JSON config file')
    .option('--business <name>', 'only this business')
    .option('--stream <name>', 'only this stream')
    .option('--limit <n>', 'at most this many', '100');
}

/** `callsync dead-letters list|show|replay`: records that could not be stored, and another go at them. */
export function registerDeadLettersCommand(program: Command): void {
  const group = program.command('dead-letters').description('inspect and replay records that could not be stored');

  filters(group.command('list').description('list dead letters, oldest first'))
    .option('--json', 'one JSON document instead of a table')
    .action((flags: FilterFlags) =>
      withSink(flags.config, async (context) => {
        const letters = await list(context, flags);
        if (flags.json === true) return void process.stdout.write(`${outsideText(jsonText(letters, 2), context.redact)}\n`);
        if (letters.length === 0) return void process.stdout.write('no dead letters\n');
        const rows = letters.map((l) => [l.id, l.businessId, l.stream, l.attempts, l.firstSeenAt, reasonText(l.reason, context.redact)]);
        process.stdout.write(`${formatTable(['id', 'business', 'stream', 'attempts', 'first seen', 'reason'], rows)}\n`);
      }),
    );

  group
    .command('show')
    .description('one dead letter with its raw record')
    .argument('<id>', 'dead letter id')
    .requiredOption('-c, --config <file>', 'YAML or JSON config file')
    .action((id: string, flags: { config: string }) =>
      withSink(flags.config, async (context) => {
        const letter = (await context.sink.deadLetters.list({ limit: Number.MAX_SAFE_INTEGER })).find((l) => l.id === Number(id));
        if (letter === undefined) {
          process.stderr.write(`no dead letter with id ${id}\n`);
          process.exitCode = 1;
          return;
        }
        process.stdout.write(`${outsideText(jsonText(letter, 2), context.redact)}\n`);
      }),
    );

  filters(group.command('replay').description('normalize and store again; remove the ones that now succeed')).action((flags: FilterFlags) =>
    withSink(flags.config, async (context) => {
      const plans = planBusinesses(context.config);
      // Every configured table, as backfill and run prepare them: a CRM sink reads the tracked numbers' table to map a replayed call.
      await context.sink.prepare(planTables(plans));
      const outcomes = await replayDeadLetters(await list(context, flags), plans, context.sink);
      const rows = outcomes.map((o) => [o.id, o.business, o.stream, o.result, reasonText(o.reason ?? '', context.redact)]);
      process.stdout.write(`${formatTable(['id', 'business', 'stream', 'result', 'reason'], rows)}\n`);
      const stored = outcomes.filter((o) => o.result === 'stored').length;
      process.stdout.write(`${stored} of ${outcomes.length} stored\n`);
      if (stored < outcomes.length) process.exitCode = 1;
    }),
  );
}
