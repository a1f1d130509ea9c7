import type { PagingMode } from '../streams/stream-descriptor.js';
import { walkFullRefresh } from './full-refresh-walker.js';
import { walkList, withRevisit } from './list-walker.js';
import { walkV2HighWater } from './v2-high-water-walker.js';
import type { RevisitSettings, Walker } from './walker.js';

export type { PageClient, RevisitSettings, WalkContext, WalkPage, Walker, WalkSettings, Query } from './walker.js';
export { walkSettings } from './walker.js';
export { PayloadShapeError } from './pager.js';
export { summarizePosition, type PositionSummary } from './positions.js';

export { withRevisit } from './list-walker.js';

/** One walker per paging mode; the checkpoint position each stores is documented on the walker. */
export const walkers: Readonly<Record<PagingMode, Walker>> = {
  cursor: walkList,
  offset: walkList,
  page: walkList,
  none: walkFullRefresh,
  'v2-newest-first': walkV2HighWater,
};

const OLDEST_FIRST: ReadonlySet<PagingMode> = new Set(['cursor', 'offset', 'page']);

/** The walker for a paging mode, revisiting recent records when the context asks for it. */
export function walkerFor(paging: PagingMode, revisit: RevisitSettings | undefined): Walker {
  const walker = walkers[paging];
  return revisit !== undefined && OLDEST_FIRST.has(paging) ? withRevisit(walker, revisit) : walker;
}
