import { STREAM_STATES, type StreamState, type StreamStatus } from '../../engine/state/index.js';
import type { BusinessStatus, StatusSnapshot } from '../../engine/state/index.js';
import { STATE_LABELS } from './format.js';
import { attentionOf } from './status-summary.js';

/** What `?state=` may name: a state, `waiting_long`, or `needs_person` (every stream that needs a person). */
export type StateChoice = StreamState | 'waiting_long' | 'needs_person';

const STATE_CHOICES: readonly StateChoice[] = [...STREAM_STATES, 'waiting_long', 'needs_person'];

/** Human wording of each choice, shared by the page and the terminal. */
export const CHOICE_LABELS: Readonly<Record<StateChoice, string>> = { ...STATE_LABELS, waiting_long: 'waiting long', needs_person: 'needs a person' };

/** `failed or drift`: what a set of choices reads as in a heading. */
export function describeStates(states: ReadonlySet<StateChoice>): string {
  return [...states].map((state) => CHOICE_LABELS[state]).join(' or ');
}

/** Which streams a view shows; an absent part keeps everything. */
export interface StatusFilter {
  readonly states?: ReadonlySet<StateChoice>;
  /** Names containing this text, any case. */
  readonly business?: string;
}

/** `failed,drift` → the set, or an error naming the bad value and the choices. */
export function parseStates(text: string): ReadonlySet<StateChoice> | { readonly error: string } {
  const values = text
    .split(',')
    .map((value) => value.trim())
    .filter((value) => value !== '');
  const unknown = values.filter((value) => !(STATE_CHOICES as readonly string[]).includes(value));
  if (values.length === 0 || unknown.length > 0) {
    return { error: `state: unknown ${JSON.stringify(unknown[0] ?? text)}; expected a comma-separated list of ${STATE_CHOICES.join(', ')}` };
  }
  return new Set(values as StateChoice[]);
}

export function businessMatches(name: string, filter: StatusFilter): boolean {
  return filter.business === undefined || name.toLowerCase().includes(filter.business.toLowerCase());
}

export function streamMatches(status: StreamStatus, filter: StatusFilter, lateAfter: number): boolean {
  const states = filter.states;
  if (states === undefined || states.has(status.state)) return true;
  const attention = attentionOf(status, lateAfter);
  return attention !== null && (states.has('needs_person') || (attention === 'waiting_long' && states.has('waiting_long')));
}

/** A stopped business is shown with no stream when the filter asks for what needs a person. */
function stoppedShown(business: BusinessStatus, filter: StatusFilter): boolean {
  const states = filter.states;
  return business.failed !== null && (states === undefined || states.has('needs_person') || states.has('auth_failed'));
}

/**
 * The businesses `filter` keeps, each with only its matching streams. Without a state filter a
 * business with no stream is kept (a stopped one, one that never reported a stream).
 */
export function filterBusinesses(snapshot: StatusSnapshot, filter: StatusFilter, lateAfter: number): BusinessStatus[] {
  const kept: BusinessStatus[] = [];
  for (const business of snapshot.businesses) {
    if (!businessMatches(business.name, filter)) continue;
    const streams = filter.states === undefined ? business.streams : business.streams.filter((status) => streamMatches(status, filter, lateAfter));
    if (streams.length > 0 || filter.states === undefined || stoppedShown(business, filter)) kept.push({ ...business, streams });
  }
  return kept;
}
