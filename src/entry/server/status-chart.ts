import type { ActivityBucket } from '../../engine/state/index.js';
import { escapeHtml } from './html.js';

const WIDTH = 360;
const HEIGHT = 48;
// Room under the bars for the time labels.
const AXIS = 14;

/** `12:05` from a bucket's `YYYY-MM-DDTHH:MMZ`. */
function clock(minute: string): string {
  return minute.slice(11, 16);
}

/** Time labels under the first, middle and last bar (UTC), so a bar can be placed in time. */
function timeAxis(buckets: readonly ActivityBucket[], slot: number): string {
  if (buckets.length === 0) return '';
  const picks = [...new Set([0, Math.floor((buckets.length - 1) / 2), buckets.length - 1])];
  return picks
    .map((index, order) => {
      const anchor = order === 0 ? 'start' : index === buckets.length - 1 ? 'end' : 'middle';
      const x = anchor === 'start' ? 0 : anchor === 'end' ? WIDTH : index * slot + slot / 2;
      return `<text x="${x.toFixed(1)}" y="${HEIGHT + AXIS - 2}" text-anchor="${anchor}" class="tick">${escapeHtml(clock(buckets[index]?.minute ?? ''))}</text>`;
    })
    .join('');
}

/**
 * A static inline SVG bar chart of records written per minute (no script, no external assets).
 * Bars scale to the busiest minute; each bar's `<title>` gives the exact count on hover.
 */
export function renderActivityChart(business: string, buckets: readonly ActivityBucket[]): string {
  const total = buckets.reduce((sum, b) => sum + b.records, 0);
  const peak = Math.max(0, ...buckets.map((b) => b.records));
  const max = Math.max(1, peak);
  const slot = buckets.length === 0 ? WIDTH : WIDTH / buckets.length;
  const bars = buckets
    .map((bucket, i) => {
      const height = bucket.records === 0 ? 0 : Math.max(1, Math.round((bucket.records / max) * HEIGHT));
      const x = (i * slot).toFixed(1);
      return (
        `<rect x="${x}" y="${HEIGHT - height}" width="${Math.max(1, slot - 1).toFixed(1)}" height="${height}">` +
        `<title>${escapeHtml(bucket.minute)}: ${bucket.records} records</title></rect>`
      );
    })
    .join('');
  const label = `Records synced per minute for ${business} over the last hour: ${total} in total, at most ${peak} in one minute`;
  return (
    `<svg class="chart" role="img" viewBox="0 0 ${WIDTH} ${HEIGHT + AXIS}" width="${WIDTH}" height="${HEIGHT + AXIS}" ` +
    `aria-label="${escapeHtml(label)}">` +
    `<line x1="0" y1="${HEIGHT + 0.5}" x2="${WIDTH}" y2="${HEIGHT + 0.5}" class="axis"/>${bars}${timeAxis(buckets, slot)}</svg>` +
    `<p class="chart-caption">records/min, last hour (UTC): ${total} total, peak ${peak}</p>`
  );
}
