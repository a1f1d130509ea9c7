import type { Command } from 'commander';
import type { Simulator, SimulatorOptions } from '../simulator/index.js';
import { startSimulator } from '../simulator/index.js';
import type { SimulateFlags } from './simulate-options.js';
import { describeSwitches, integerArg, orderArg, outboundToNumberArg, probabilityArg, rateArg, toSimulatorOptions } from './simulate-options.js';

/** Seams for tests: where output goes and which process signals stop the simulator. */
export interface SimulateDeps {
  write: (text: string) => void;
  /** Called once listening; tests use it to reach and close the simulator. */
  onStarted?: (simulator: Simulator) => void;
  signals: NodeJS.Signals[];
}

const DEFAULT_DEPS: SimulateDeps = {
  write: (text) => process.stdout.write(text),
  signals: ['SIGINT', 'SIGTERM'],
};

function startupLine(sim: Simulator): string {
  return JSON.stringify({
    baseUrl: sim.baseUrl,
    v2BaseUrl: sim.v2BaseUrl,
    recordingsBaseUrl: sim.recordingsBaseUrl,
    businesses: sim.businesses.map(({ name, apiKey, v2Token, email, password }) => ({ name, apiKey, v2Token, email, password })),
  });
}

function summary(sim: Simulator, flags: SimulateFlags, options: SimulatorOptions): string {
  const switches = describeSwitches(options);
  const limit = flags.rateLimit === false ? 'off' : `${flags.rateLimit} per ${flags.rateWindowMs} ms`;
  const lines = [
    `call-tracking simulator listening`,
    `  v1:         ${sim.baseUrl}/api/v1/`,
    `  v2:         ${sim.v2BaseUrl}/api/all/voicemails, /api/all/calls`,
    `  recordings: ${sim.recordingsBaseUrl}`,
    `  rate limit: ${limit}; ${flags.calls} calls and ${flags.voicemails} voicemails per business (seed ${flags.seed})`,
    ...(switches.length === 0 ? [] : [`  switches:   ${switches.join(', ')}`]),
    ...sim.businesses.map((b) => `  ${b.name}: apiKey ${b.apiKey}  v2Token ${b.v2Token}  login ${b.email} / ${b.password}`),
    'Ctrl-C to stop.',
  ];
  return `${lines.join('\n')}\n`;
}

/** `callsync simulate`: the fake upstream for demos, tests and load rehearsal. */
export function registerSimulateCommand(program: Command, deps: SimulateDeps = DEFAULT_DEPS): void {
  program
    .command('simulate')
    .description('run a local fake of the call-tracking service (v1, v2, session login)')
    .option('--port <port>', 'port to listen on (0 = ephemeral)', integerArg, 4010)
    .option('--host <host>', 'interface to bind', '127.0.0.1')
    .option('--businesses <n>', 'number of businesses (biz-1, biz-2, ...)', integerArg, 3)
    .option('--calls <n>', 'calls per business', integerArg, 5000)
    .option('--voicemails <n>', 'voicemails per business', integerArg, 300)
    .option('--numbers <n>', 'tracked numbers per business', integerArg, 5)
    .option('--seed <n>', 'seed of the generated data', integerArg, 1)
    .option('--rate-limit <n>', 'requests per window per business', integerArg, 60)
    .option('--no-rate-limit', 'disable rate limiting')
    .option('--rate-window-ms <ms>', 'rate-limit window', integerArg, 60_000)
    .option('--cursor-ttl-ms <ms>', 'cursors older than this are rejected as expired', integerArg)
    .option('--calls-per-second <n>', 'live call arrivals per business', rateArg)
    .option('--voicemails-per-second <n>', 'live voicemail arrivals per business', rateArg)
    .option('--error-rate <p>', 'probability of a 500', probabilityArg)
    .option('--slow-rate <p>', 'probability of a slow response', probabilityArg)
    .option('--slow-ms <ms>', 'delay of a slow response', integerArg)
    .option('--truncate-rate <p>', 'probability of a truncated body', probabilityArg)
    .option('--bad-json-rate <p>', 'probability of a 200 whose body is not JSON', probabilityArg)
    .option('--reset-rate <p>', 'probability of a connection reset', probabilityArg)
    .option('--v1-order <order>', 'order of the v1 lists /calls and /sms: oldest or newest first', orderArg)
    .option('--outbound-to-number <reading>', 'to_number of outbound calls: customer (the call goes from the tracked number) or tracked (the tracked number on every call)', outboundToNumberArg)
    .option('--v2-limit-cap <n>', 'v2 lists silently return at most n records whatever limit asks', integerArg)
    .option('--v2-fractional-uuid', 'serve one record per v2 list with uuid <predecessor>.0000000001')
    .option('--v1-limit-cap <n>', 'v1 lists silently serve at most n records per page', integerArg)
    .option('--stuck-cursor', 'broken paging: next_cursor never changes after the first page')
    .option('--cycling-cursor', 'broken paging: next_cursor cycles between two values')
    .option('--empty-pages-forever', 'broken paging: has_more stays true with empty pages past the end')
    .option('--ignore-offset', 'broken paging: offset and page are ignored (always the first page)')
    .option('--negative-total', 'broken paging: total is -1')
    .option('--retry-after-429 <value>', 'hostile: Retry-After on every 429, verbatim (seconds or an HTTP date)')
    .option('--exhausted-until <unixSec>', 'hostile: every response says X-RateLimit-Remaining 0 until this reset', integerArg)
    .option('--huge-body-bytes <n>', 'hostile: list responses are a streamed JSON body of n bytes', integerArg)
    .option('--trickle-ms <ms>', 'hostile: response bodies trickle one byte every ms', integerArg)
    .option('--echo-credentials-at <n>', 'hostile: every request gets a 500 whose message holds the credential at character n', integerArg)
    .option('--unavailable-requests <n>', 'hostile: the first n requests get 503 with Retry-After', integerArg)
    .option('--unavailable-retry-after <value>', 'Retry-After of those 503s (seconds or an HTTP date; default 30)')
    .option('--list-share <share>', 'hostile: every v1 list answers only this share of its records (0.333: every third), total agreeing', probabilityArg)
    .option('--deep-record <depth>', 'one call per business (index 10) nests custom_data this deep', integerArg)
    .option('--lone-surrogate-record', 'one call per business has a lone surrogate in its transcription')
    .option('--oversized-record-bytes <n>', 'one call per business has a transcription of n bytes', integerArg)
    .option('--webhooks <url>', 'send a signed webhook to <url>/<business> for each new call or voicemail, late transcription and deletion')
    .option('--webhook-secret <secret>', 'HMAC secret of the webhooks (every business)')
    .option('--webhook-max-delay-ms <ms>', 'each webhook leaves after a random delay up to this', integerArg)
    .option('--webhook-drop-rate <p>', 'probability that a webhook is never sent', probabilityArg)
    .option('--webhook-duplicate-rate <p>', 'probability that a webhook is sent twice', probabilityArg)
    .option('--webhook-reorder-rate <p>', 'probability that a webhook is held back so later ones overtake it', probabilityArg)
    .option('--json', 'print one JSON line with URLs and credentials once listening')
    .action(async (flags: SimulateFlags) => {
      const options = toSimulatorOptions(flags);
      const sim = await startSimulator(options);
      deps.write(flags.json === true ? `${startupLine(sim)}\n` : summary(sim, flags, options));
      const stop = (): void => {
        for (const signal of deps.signals) process.off(signal, stop);
        void sim.close();
      };
      for (const signal of deps.signals) process.once(signal, stop);
      deps.onStarted?.(sim);
    });
}
