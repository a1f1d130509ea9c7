import type { z } from 'zod';
import { checkDeclaredColumns } from './columns.js';
import { BUILT_IN_STREAMS, DEFAULT_STREAMS, V2_STREAMS } from './sections.js';

interface Checked {
  readonly upstream: { readonly v2BaseUrl?: string | undefined };
  readonly businesses: readonly {
    readonly name: string;
    readonly apiKey?: string | undefined;
    readonly session?: unknown;
    readonly v2Token?: string | undefined;
    readonly streams: readonly string[];
    readonly webhookSecret?: string | undefined;
  }[];
  readonly streams: readonly { readonly name: string }[];
  readonly columns: Readonly<Record<string, readonly { readonly name: string }[]>>;
  readonly hooks?: { readonly secret?: string | undefined; readonly streamMap: Readonly<Record<string, string>> } | undefined;
}

type Context = z.core.$RefinementCtx<Checked>;

function checkExtraStreams(config: Checked, ctx: Context): void {
  const seen = new Map<string, number>();
  config.streams.forEach((stream, index) => {
    const first = seen.get(stream.name);
    if (first === undefined) seen.set(stream.name, index);
    else ctx.addIssue({ code: 'custom', path: ['streams', index, 'name'], message: `duplicate stream name "${stream.name}" (also streams[${first}])` });
  });
}

function checkBusiness(config: Checked, index: number, ctx: Context, known: ReadonlySet<string>): void {
  const business = config.businesses[index];
  if (!business) return;
  const at = (...rest: (string | number)[]): (string | number)[] => ['businesses', index, ...rest];
  business.streams.forEach((stream, position) => {
    if (!known.has(stream))
      ctx.addIssue({ code: 'custom', path: at('streams', position), message: `unknown stream "${stream}" (expected one of ${[...known].join(', ')})` });
  });
  if (business.streams.includes('calls') && business.streams.includes('v2_calls')) {
    ctx.addIssue({ code: 'custom', path: at('streams'), message: 'lists both "calls" and "v2_calls": the same calls would be stored under two ids; pick one' });
  }
  const defaulted = business.streams.join() === DEFAULT_STREAMS.join() ? ` (the default streams are ${DEFAULT_STREAMS.join(', ')})` : '';
  if (business.apiKey !== undefined && business.session !== undefined) {
    ctx.addIssue({ code: 'custom', path: at('session'), message: 'give either apiKey or session, not both' });
  }
  const v1 = business.streams.filter((stream) => !V2_STREAMS.includes(stream));
  if (v1.length > 0 && business.apiKey === undefined && business.session === undefined) {
    ctx.addIssue({ code: 'custom', path: at('apiKey'), message: `required (or session: { email, password }) for v1 streams ${v1.join(', ')}${defaulted}` });
  }
  const v2 = business.streams.filter((stream) => V2_STREAMS.includes(stream));
  if (v2.length === 0) return;
  if (business.v2Token === undefined) {
    ctx.addIssue({ code: 'custom', path: at('v2Token'), message: `required for v2 streams ${v2.join(', ')}${defaulted}` });
  }
  if (config.upstream.v2BaseUrl === undefined) {
    ctx.addIssue({
      code: 'custom',
      path: ['upstream', 'v2BaseUrl'],
      message: `required: business "${business.name}" uses v2 streams ${v2.join(', ')}${defaulted}`,
    });
  }
}

/** A webhook receiver needs a secret for every business and maps payload values to streams that exist. */
function checkHooks(config: Checked, ctx: Context, known: ReadonlySet<string>): void {
  const hooks = config.hooks;
  if (hooks === undefined) return;
  if (hooks.secret === undefined) {
    config.businesses.forEach((business, index) => {
      if (business.webhookSecret === undefined) {
        ctx.addIssue({
          code: 'custom',
          path: ['businesses', index, 'webhookSecret'],
          message: 'required while hooks.secret is not set: every delivery is authenticated',
        });
      }
    });
  }
  for (const [value, stream] of Object.entries(hooks.streamMap)) {
    if (!known.has(stream))
      ctx.addIssue({ code: 'custom', path: ['hooks', 'streamMap', value], message: `unknown stream "${stream}" (expected one of ${[...known].join(', ')})` });
  }
}

/** Rules that span sections: unique names, known streams, declared columns, the credentials each stream needs. */
export function checkConfig(config: Checked, ctx: Context): void {
  checkExtraStreams(config, ctx);
  checkDeclaredColumns(config, (issue) => ctx.addIssue({ code: 'custom', ...issue }));
  const known = new Set<string>([...BUILT_IN_STREAMS, ...config.streams.map((stream) => stream.name)]);
  const names = new Map<string, number>();
  config.businesses.forEach((business, index) => {
    const first = names.get(business.name);
    if (first === undefined) names.set(business.name, index);
    else
      ctx.addIssue({ code: 'custom', path: ['businesses', index, 'name'], message: `duplicate business name "${business.name}" (also businesses[${first}])` });
    checkBusiness(config, index, ctx, known);
  });
  checkHooks(config, ctx, known);
}
