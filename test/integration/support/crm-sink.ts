import { Writable } from 'node:stream';
import { pino, type Logger } from 'pino';
import { Agent } from 'undici';
import type { StateStore } from '../../../src/sink/parts.js';
import { openStateStore, type StateStoreConfig } from '../../../connectors/state-stores/index.js';
import type { Sink } from '../../../src/sink/sink.js';

/** A debug logger whose lines are kept, as text, for tests that read what a sink logged. */
export function capturingLogger(): { logger: Logger; logs: string[] } {
  const logs: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      logs.push(chunk.toString('utf8'));
      done();
    },
  });
  return { logger: pino({ level: 'debug' }, stream), logs };
}

/** What a CRM sink factory (HubSpot, Salesforce) is given by these fixtures. */
export interface CrmSinkDeps {
  readonly logger: Logger;
  readonly dispatcher: Agent;
  readonly store: StateStore;
}

/** A CRM sink under test, over its own state database. */
export interface CrmSinkUnderTest {
  readonly sink: Sink;
  /** Every log line the sink wrote, as text. */
  readonly logs: string[];
  /** A new sink over the same state database, as a re-run in a new process would open it; closed with the first. */
  reopen(): Promise<Sink>;
  /** Closes every sink opened (and each one's Agent), then runs the caller's teardown. */
  close(): Promise<void>;
}

/** Opens a CRM sink (HubSpot, Salesforce) with its own state store connection and undici Agent, as each process would. */
export async function openCrmSink(state: StateStoreConfig, create: (deps: CrmSinkDeps) => Sink, teardown: () => Promise<void>): Promise<CrmSinkUnderTest> {
  const { logger, logs } = capturingLogger();
  const opened: { sink: Sink; dispatcher: Agent }[] = [];
  const open = async (): Promise<Sink> => {
    const store = await openStateStore(state, logger);
    const dispatcher = new Agent();
    const sink = create({ logger, dispatcher, store });
    opened.push({ sink, dispatcher });
    return sink;
  };
  return {
    sink: await open(),
    logs,
    reopen: open,
    async close() {
      for (const { sink, dispatcher } of opened) {
        await sink.close();
        await dispatcher.close();
      }
      await teardown();
    },
  };
}
