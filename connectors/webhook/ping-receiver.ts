import { request, type Dispatcher } from 'undici';
import { describeEndpoint } from './webhook-errors.js';

/**
 * Readiness: the receiver answers at all. A HEAD is enough; many receivers answer it with 404 or
 * 405, which still proves the endpoint is reachable. Only 5xx and network failures count as down.
 */
export async function pingReceiver(url: string, timeoutMs: number, dispatcher: Dispatcher): Promise<void> {
  const endpoint = describeEndpoint(url);
  let status: number;
  try {
    const response = await request(url, { dispatcher, method: 'HEAD', signal: AbortSignal.timeout(timeoutMs) });
    await response.body.dump();
    status = response.statusCode;
  } catch (error) {
    throw new Error(`webhook receiver ${endpoint} is unreachable: ${(error as Error).message}`, { cause: error });
  }
  if (status >= 500) throw new Error(`webhook receiver ${endpoint} answered HTTP ${status}`);
}
