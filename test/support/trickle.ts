import type { Dispatcher, MockAgent } from 'undici';

/**
 * A MockAgent whose answers send their headers at once and then their body in `chunks` pieces, one
 * every `everyMs`: a server that trickles. MockAgent alone hands over headers and body together,
 * so only this shows a deadline that covers the body (an idle timeout per chunk would never fire).
 */
export function trickling(agent: MockAgent, chunks: number, everyMs: number): Dispatcher {
  return agent.compose((dispatch) => (options, handler) => {
    let stopped = false;
    const pieces: Buffer[] = [];
    const wrapped: Dispatcher.DispatchHandler = {
      onConnect: (abort) => handler.onConnect?.((reason?: Error) => ((stopped = true), abort(reason))),
      onHeaders: (status, headers, resume, text) => handler.onHeaders?.(status, headers, resume, text) ?? true,
      onData: (chunk) => (pieces.push(Buffer.from(chunk)), true),
      onError: (error) => ((stopped = true), handler.onError?.(error)),
      onComplete: (trailers) => {
        const body = Buffer.concat(pieces);
        const size = Math.ceil(body.length / chunks);
        const step = (index: number): void => {
          if (stopped) return;
          if (index >= chunks) {
            handler.onComplete?.(trailers);
            return;
          }
          handler.onData?.(body.subarray(index * size, (index + 1) * size));
          setTimeout(() => step(index + 1), everyMs);
        };
        step(0);
      },
    };
    return dispatch(options, wrapped);
  });
}
