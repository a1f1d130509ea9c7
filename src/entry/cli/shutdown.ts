/**
 * Calls `stop` on the first SIGINT or SIGTERM; a second signal exits at once, for the operator
 * who really means it. Returns a function that removes the handlers.
 */
export function onShutdownSignal(stop: () => void): () => void {
  let received = false;
  const handler = (signal: NodeJS.Signals): void => {
    if (received) process.exit(signal === 'SIGINT' ? 130 : 143);
    received = true;
    stop();
  };
  process.on('SIGINT', handler);
  process.on('SIGTERM', handler);
  return () => {
    process.off('SIGINT', handler);
    process.off('SIGTERM', handler);
  };
}
