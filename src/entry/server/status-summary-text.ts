import type { StatusSnapshot, StreamStatus } from '../../engine/state/index.js';
import { formatCount, formatDuration, STATE_LABELS, stateFix, WAITING_LONG_FIX } from './format.js';
import { CHOICE_LABELS } from './status-filter.js';
import { ATTENTIONS, attentionOf, byLag, SUMMARY_ORDER, summarize, summaryCount, type Attention } from './status-summary.js';
import { formatStreamRows, shorten, terminalSafe } from './status-table.js';

interface StatusSummaryTextOptions {
  /** Widest line produced, in characters. @defaultValue 120 */
  readonly width?: number;
  /** The lag from which a stream counts as waiting long. */
  readonly lateAfterSeconds: number;
  /** Most streams listed; the rest are counted. @defaultValue 20 */
  readonly limit?: number;
}

/** `fix: …` in lines no wider than `width`, broken at spaces, indented: a fix names a command, so it is never cut. */
function wrapFix(fix: string, width: number): string[] {
  const lines: string[] = [];
  let line = '  fix:';
  for (const word of terminalSafe(fix).split(' ')) {
    if (Array.from(`${line} ${word}`).length <= width) line = `${line} ${word}`;
    else {
      lines.push(line);
      line = `       ${word}`;
    }
  }
  return [...lines, line];
}

/** Stopped businesses listed before "and N more". */
const STOPPED_SHOWN = 5;

function fixFor(attention: Attention, example: StreamStatus, lateAfter: number): string {
  if (attention === 'waiting_long') {
    return `no successful run for ${formatDuration(lateAfter)} or more: ${WAITING_LONG_FIX}`;
  }
  return stateFix(example) ?? '';
}

/**
 * `callsync status` by default: one screen that says what needs a person. The counts by state,
 * the stopped businesses with their fix, then the streams that need a person, most behind first
 * (at most `limit`), and one fix per kind of problem, shown on its first stream.
 */
export function formatStatusSummary(snapshot: StatusSnapshot, options: StatusSummaryTextOptions): string {
  const width = options.width ?? 120;
  const limit = options.limit ?? 20;
  const now = snapshot.generatedAt;
  if (snapshot.businesses.length === 0) return `No status reported yet (as of ${now}).`;
  const late = options.lateAfterSeconds;
  const summary = summarize(snapshot, late);
  const fit = (text: string): string => shorten(text, width);
  const stopped = summary.stoppedBusinesses === 0 ? '' : ` (${formatCount(summary.stoppedBusinesses)} stopped)`;
  const counts = (keys: readonly (typeof SUMMARY_ORDER)[number][]): string =>
    keys.map((key) => `${CHOICE_LABELS[key]} ${formatCount(summaryCount(summary, key))}`).join(' · ');
  const others = SUMMARY_ORDER.filter((key) => !(ATTENTIONS as readonly string[]).includes(key));
  const lines = [
    fit(`${formatCount(summary.businesses)} businesses${stopped}, ${formatCount(summary.streams)} streams, as of ${now}`),
    fit(`needs a person ${formatCount(summary.needsPerson)}: ${counts(ATTENTIONS)}`),
    fit(`other states: ${counts(others)}; waiting long = no successful run for ${formatDuration(late)} or more`),
  ];
  const stops = snapshot.businesses.filter((business) => business.failed !== null);
  for (const business of stops.slice(0, STOPPED_SHOWN)) {
    lines.push(fit(`${terminalSafe(business.name)}: STOPPED: ${terminalSafe(business.failed ?? '')}`));
    lines.push(...wrapFix(stateFix({ state: 'auth_failed', business: business.name, stream: '' }) ?? '', width));
  }
  if (stops.length > STOPPED_SHOWN)
    lines.push(fit(`… and ${formatCount(stops.length - STOPPED_SHOWN)} more stopped businesses (callsync status --all lists them)`));

  const problems = snapshot.businesses.flatMap((business) => business.streams.filter((status) => attentionOf(status, late) !== null)).sort(byLag);
  lines.push('');
  if (problems.length === 0) {
    lines.push('Nothing needs a person.', 'callsync status --all lists every stream.');
    return lines.join('\n');
  }
  const shown = problems.slice(0, limit);
  lines.push(fit(`NEEDS A PERSON: ${formatCount(problems.length)} streams, most behind first`), ...formatStreamRows(shown, now, width, 'problems'));
  if (problems.length > shown.length)
    lines.push(fit(`… and ${formatCount(problems.length - shown.length)} more (--limit N shows more; --all lists every stream)`));
  lines.push('');
  for (const attention of ATTENTIONS) {
    const first = problems.find((status) => attentionOf(status, late) === attention);
    if (first === undefined) continue;
    const label = attention === 'waiting_long' ? CHOICE_LABELS.waiting_long : STATE_LABELS[attention];
    const count = formatCount(summaryCount(summary, attention));
    lines.push(fit(`${label} (${count}), e.g. ${terminalSafe(`${first.business}/${first.stream}`)}:`), ...wrapFix(fixFor(attention, first, late), width));
  }
  return lines.join('\n');
}
