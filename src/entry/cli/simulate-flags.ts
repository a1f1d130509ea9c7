import { Option, type Command } from 'commander';
import { cursorsArg, integerArg, orderArg, outboundToNumberArg, probabilityArg, rateArg, recordingBytesArg, recordingsRateArg } from './simulate-options.js';

/** One `simulate` option: flags, help text, then its parser and default where it has them. */
type SimulateOption = readonly [flags: string, description: string, parse?: (value: string) => unknown, fallback?: unknown];

/** Every option of `callsync simulate`; `SimulateFlags` is what commander makes of them. */
const SIMULATE_OPTIONS: readonly SimulateOption[] = [
  ['--port <port>', 'port to listen on (0 = ephemeral)', integerArg, 4010],
  ['--host <host>', 'interface to bind', undefined, '127.0.0.1'],
  ['--businesses <n>', 'number of businesses (biz-1, biz-2, ...)', integerArg, 3],
  ['--calls <n>', 'calls per business', integerArg, 5000],
  ['--voicemails <n>', 'voicemails per business', integerArg, 300],
  ['--numbers <n>', 'tracked numbers per business', integerArg, 5],
  ['--seed <n>', 'seed of the generated data', integerArg, 1],
  ['--rate-limit <n>', 'requests per window per business', integerArg, 60],
  ['--no-rate-limit', 'disable rate limiting'],
  ['--rate-window-ms <ms>', 'rate-limit window', integerArg, 60_000],
  ['--cursor-ttl-ms <ms>', 'cursors older than this are rejected as expired', integerArg],
  ['--cursors <reading>', 'fresh (a new cursor each answer) or stable (a position always has the same cursor, never expiring)', cursorsArg],
  ['--calls-per-second <n>', 'live call arrivals per business', rateArg],
  ['--voicemails-per-second <n>', 'live voicemail arrivals per business', rateArg],
  ['--error-rate <p>', 'probability of a 500', probabilityArg],
  ['--slow-rate <p>', 'probability of a slow response', probabilityArg],
  ['--slow-ms <ms>', 'delay of a slow response', integerArg],
  ['--truncate-rate <p>', 'probability of a truncated body', probabilityArg],
  ['--bad-json-rate <p>', 'probability of a 200 whose body is not JSON', probabilityArg],
  ['--reset-rate <p>', 'probability of a connection reset', probabilityArg],
  ['--v1-order <order>', 'order of the v1 lists /calls and /sms: oldest or newest first', orderArg],
  [
    '--outbound-to-number <reading>',
    'to_number of outbound calls: customer (the call goes from the tracked number) or tracked (the tracked number on every call)',
    outboundToNumberArg,
  ],
  ['--v2-limit-cap <n>', 'v2 lists silently return at most n records whatever limit asks', integerArg],
  ['--v2-fractional-uuid', 'serve one record per v2 list with uuid <predecessor>.0000000001'],
  ['--v1-limit-cap <n>', 'v1 lists silently serve at most n records per page', integerArg],
  ['--stuck-cursor', 'broken paging: next_cursor never changes after the first page'],
  ['--cycling-cursor', 'broken paging: next_cursor cycles between two values'],
  ['--empty-pages-forever', 'broken paging: has_more stays true with empty pages past the end'],
  ['--ignore-offset', 'broken paging: offset and page are ignored (always the first page)'],
  ['--negative-total', 'broken paging: total is -1'],
  ['--retry-after-429 <value>', 'hostile: Retry-After on every 429, verbatim (seconds or an HTTP date)'],
  ['--exhausted-until <unixSec>', 'hostile: every response says X-RateLimit-Remaining 0 until this reset', integerArg],
  ['--huge-body-bytes <n>', 'hostile: list responses are a streamed JSON body of n bytes', integerArg],
  ['--trickle-ms <ms>', 'hostile: response bodies trickle one byte every ms', integerArg],
  ['--echo-credentials-at <n>', 'hostile: every request gets a 500 whose message holds the credential at character n', integerArg],
  ['--unavailable-requests <n>', 'hostile: the first n requests get 503 with Retry-After', integerArg],
  ['--unavailable-retry-after <value>', 'Retry-After of those 503s (seconds or an HTTP date; default 30)'],
  ['--list-share <share>', 'hostile: every v1 list answers only this share of its records (0.333: every third), total agreeing', probabilityArg],
  ['--deep-record <depth>', 'one call per business (index 10) nests custom_data this deep', integerArg],
  ['--lone-surrogate-record', 'one call per business has a lone surrogate in its transcription'],
  ['--oversized-record-bytes <n>', 'one call per business has a transcription of n bytes', integerArg],
  ['--webhooks <url>', 'send a signed webhook to <url>/<business> for each new call or voicemail, late transcription and deletion'],
  ['--webhook-secret <secret>', 'HMAC secret of the webhooks (every business)'],
  ['--webhook-max-delay-ms <ms>', 'each webhook leaves after a random delay up to this', integerArg],
  ['--webhook-drop-rate <p>', 'probability that a webhook is never sent', probabilityArg],
  ['--webhook-duplicate-rate <p>', 'probability that a webhook is sent twice', probabilityArg],
  ['--webhook-reorder-rate <p>', 'probability that a webhook is held back so later ones overtake it', probabilityArg],
  ['--recording-bytes <n|min-max>', 'bytes per recording, or a range drawn per recording (default 4096-65536)', recordingBytesArg],
  ['--recording-link-ttl-ms <ms>', "recording links answer 403 once their record's created_at is older than this", integerArg],
  ['--recordings-port <port>', 'port of the second server: provider links, and the foreign host name (default --port + 1; 0 = ephemeral)', integerArg],
  ['--recordings-on-own-port', 'serve the media links from the second port instead of the API port'],
  ['--recordings-rate-limit <n|api>', "recording downloads per window per business, or api: they count in the API's budget", recordingsRateArg],
  ['--recordings-rate-window-ms <ms>', 'window of --recordings-rate-limit (default 60000)', integerArg],
  ['--recordings-base-url <url>', 'prefix of recording_url instead of the served media path (links there are not served)'],
  ['--provider-base-url <url>', 'host of voicemail_api_recording_url instead of the second port (links there are not served)'],
  ['--provider-redirect', 'provider links (voicemail_api_recording_url) answer 302 to the media link'],
  ['--json', 'print one JSON line with URLs and credentials once listening'],
];

/** Adds every `simulate` option to `command`. */
export function addSimulateOptions(command: Command): Command {
  for (const [flags, description, parse, fallback] of SIMULATE_OPTIONS) {
    const option = new Option(flags, description);
    if (parse !== undefined) option.argParser(parse);
    if (fallback !== undefined) option.default(fallback);
    command.addOption(option);
  }
  return command;
}
