import { forTerminal } from '../../base/redact/index.js';
import type { StreamStatus } from '../../engine/state/index.js';
import { STATE_LABELS } from './format.js';
import type { StatusSnapshot } from '../../engine/state/index.js';
import { formatAgo, formatBudget, formatCount, formatLag, formatWalk, stateFix } from './format.js';

interface StatusTableOptions {
  /** Widest line produced, in characters. @defaultValue 120 */
  readonly width?: number;
}

interface Column {
  readonly header: string;
  /** Longest a cell may be before it is shortened with `…`. */
  readonly max: number;
  readonly numeric: boolean;
  readonly value: (status: StreamStatus, nowIso: string) => string;
}

const GAP = '  ';

const COLUMNS: readonly Column[] = [
  { header: 'BUSINESS', max: 18, numeric: false, value: (s) => s.business },
  { header: 'STREAM', max: 12, numeric: false, value: (s) => s.stream },
  { header: 'STATE', max: 18, numeric: false, value: (s) => STATE_LABELS[s.state] },
  { header: 'LAST SUCCESS', max: 13, numeric: false, value: (s, now) => formatAgo(s.lastSuccessAt, now) },
  { header: 'LAG', max: 7, numeric: true, value: (s) => formatLag(s.lagSeconds) },
  { header: 'RECORDS', max: 11, numeric: true, value: (s) => formatCount(s.recordsSynced) },
  { header: 'BUDGET', max: 26, numeric: true, value: (s) => formatBudget(s.budget) },
  { header: 'DEAD', max: 7, numeric: true, value: (s) => formatCount(s.deadLetters) },
  { header: 'WALK', max: 32, numeric: false, value: (s) => formatWalk(s.walk) },
];
/** The problem list keeps what says why and how long: the message gets the width (budget, records and walk are on --all). */
const PROBLEM_HEADERS: ReadonlySet<string> = new Set(['BUSINESS', 'STREAM', 'STATE', 'LAST SUCCESS', 'DEAD']);
const PROBLEM_COLUMNS: readonly Column[] = COLUMNS.filter((column) => PROBLEM_HEADERS.has(column.header));
const MESSAGE_HEADER = 'LAST ERROR / WARNING';
const MIN_MESSAGE_WIDTH = 12;

/**
 * Makes stored text safe and single-line for a terminal: the one control-character filter
 * (escape sequences a hostile upstream message could carry go whole), then runs of space collapse.
 */
export function terminalSafe(text: string): string {
  return forTerminal(text).replace(/\s+/g, ' ').trim();
}

/** Cuts `text` to `width` characters (code points), marking the cut with `…`. */
export function shorten(text: string, width: number): string {
  const chars = Array.from(text);
  if (chars.length <= width) return text;
  return width <= 1 ? '…'.slice(0, width) : `${chars.slice(0, width - 1).join('')}…`;
}

function messageOf(status: StreamStatus): string {
  return [status.lastError, status.warning].filter((m): m is string => m !== null).join(' | ') || '-';
}

/**
 * The stream table's lines (a header, then one row per stream, in the order given), no wider than
 * `width`: every column for the full table, fewer for the summary's list of problems.
 */
export function formatStreamRows(streams: readonly StreamStatus[], nowIso: string, width: number, set: 'all' | 'problems' = 'all'): string[] {
  const columns = set === 'all' ? COLUMNS : PROBLEM_COLUMNS;
  const cells = streams.map((s) => columns.map((c) => shorten(terminalSafe(c.value(s, nowIso)), c.max)));
  const widths = columns.map((c, i) => cells.reduce((most, row) => Math.max(most, Array.from(row[i] ?? '').length), c.header.length));
  const used = widths.reduce((sum, w) => sum + w + GAP.length, 0);
  const messageWidth = Math.max(MIN_MESSAGE_WIDTH, width - used);
  const line = (values: readonly string[], message: string): string =>
    shorten(
      [
        ...values.map((v, i) => {
          const w = widths[i] ?? 0;
          return columns[i]?.numeric ? v.padStart(w) : v.padEnd(w);
        }),
        shorten(message, messageWidth),
      ]
        .join(GAP)
        .trimEnd(),
      width,
    );
  return [
    line(
      columns.map((c) => c.header),
      MESSAGE_HEADER,
    ),
    ...cells.map((row, i) => line(row, terminalSafe(messageOf(streams[i] as StreamStatus)))),
  ];
}

/**
 * `callsync status --all` as plain-text columns no wider than `width`: one row per business ×
 * stream, then one line per stopped business and each business's records in the last hour.
 */
export function formatStatusTable(snapshot: StatusSnapshot, options: StatusTableOptions = {}): string {
  const width = options.width ?? 120;
  const now = snapshot.generatedAt;
  const streams = snapshot.businesses.flatMap((b) => b.streams);
  if (snapshot.businesses.length === 0) return `No status reported yet (as of ${now}).`;
  const lines = [...formatStreamRows(streams, now, width), ''];
  for (const business of snapshot.businesses) {
    const lastHour = business.activity.reduce((sum, b) => sum + b.records, 0);
    const stopped = business.failed === null ? '' : `; STOPPED: ${terminalSafe(business.failed)}`;
    lines.push(shorten(`${terminalSafe(business.name)}: ${formatCount(lastHour)} records in the last hour${stopped}`, width));
    if (business.failed !== null)
      lines.push(shorten(`  fix: ${terminalSafe(stateFix({ state: 'auth_failed', business: business.name, stream: '' }) ?? '')}`, width));
  }
  // A fix per stream that needs a person (a wait for budget does not; a stopped business has its line above).
  const stopped = new Set(snapshot.businesses.filter((b) => b.failed !== null).map((b) => b.name));
  for (const status of streams) {
    const fix = status.state === 'waiting_for_budget' || (status.state === 'auth_failed' && stopped.has(status.business)) ? null : stateFix(status);
    if (fix !== null)
      lines.push(shorten(`${terminalSafe(`${status.business}/${status.stream}`)} ${STATE_LABELS[status.state]}: fix: ${terminalSafe(fix)}`, width));
  }
  lines.push(`as of ${now}`);
  return lines.join('\n');
}

/** `callsync status --json`: the same document `GET /status` serves. */
export function formatStatusJson(snapshot: StatusSnapshot): string {
  return JSON.stringify(snapshot, null, 2);
}
