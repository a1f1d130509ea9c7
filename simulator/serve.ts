import type { IncomingMessage, ServerResponse } from 'node:http';
import { hostileReply } from './hostile.js';
import type { Reply } from './responder.js';
import { HUGE_ENVELOPES } from './slow-bodies.js';
import type { SimState } from './state.js';
import { NO_FAULT } from './faults.js';

/**
 * Answers an admitted v1 API-key or v2 request: a hostile interception (503, echoed credential)
 * replaces routing; a list answer may become a huge body; otherwise the fault plan applies,
 * with the body trickling when `hostile.trickleMs` says so.
 */
export async function serveAdmitted(
  state: SimState,
  req: IncomingMessage,
  res: ServerResponse,
  path: string,
  headers: Record<string, string>,
  produce: () => Promise<Reply> | Reply,
): Promise<void> {
  // Drawn first, as before any hostile switch existed, so a seeded run repeats exactly.
  const fault = state.faults.plan();
  const intercepted = hostileReply(state.hostile, req, headers, state.counters);
  if (intercepted !== undefined) {
    state.responder.send(res, intercepted, NO_FAULT);
    return;
  }
  const reply = await produce();
  const hostile = state.hostile;
  const huge = HUGE_ENVELOPES[path];
  if (hostile.hugeBodyBytes > 0 && huge !== undefined && reply.status === 200) {
    state.responder.sendHuge(res, headers, hostile.hugeBodyBytes, hostile.hugeBodyDeclared, huge);
    return;
  }
  state.responder.send(res, reply, hostile.trickleMs > 0 ? { ...fault, trickleMs: hostile.trickleMs } : fault);
}
