import { Agent, request } from 'undici';

/** A fresh connection pool per test file, so keep-alive sockets never leak between simulators. */
export const agent = new Agent({ keepAliveTimeout: 1000 });

export interface Response<T = unknown> {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: T;
  text: string;
}

export async function call<T = unknown>(
  url: string,
  options: { method?: 'GET' | 'POST' | 'DELETE'; token?: string; cookie?: string; json?: unknown } = {},
): Promise<Response<T>> {
  const headers: Record<string, string> = {};
  if (options.token !== undefined) headers.authorization = `Bearer ${options.token}`;
  if (options.cookie !== undefined) headers.cookie = options.cookie;
  if (options.json !== undefined) headers['content-type'] = 'application/json';
  const res = await request(url, {
    method: options.method ?? 'GET',
    headers,
    body: options.json === undefined ? undefined : JSON.stringify(options.json),
    dispatcher: agent,
  });
  const text = await res.body.text();
  return { status: res.statusCode, headers: res.headers, body: (text === '' ? undefined : JSON.parse(text)) as T, text };
}

export interface CallsPage {
  data: { calls: { id: string; created_at: string }[]; total: number; has_more: boolean; next_cursor?: string };
}

/** Walks `/calls` by offset from the start; returns every id seen in order and the last page's total. */
export async function offsetWalk(baseUrl: string, token: string, limit: number, between?: () => void): Promise<{ ids: string[]; total: number }> {
  const ids: string[] = [];
  for (let offset = 0; ; offset += limit) {
    const res = await call<CallsPage>(`${baseUrl}/api/v1/calls?limit=${limit}&offset=${offset}`, { token });
    ids.push(...res.body.data.calls.map((c) => c.id));
    if (!res.body.data.has_more) return { ids, total: res.body.data.total };
    between?.();
  }
}

/** Walks `/calls` by cursor from the start; returns every id seen in order. */
export async function cursorWalk(baseUrl: string, token: string, limit: number, between?: () => void): Promise<string[]> {
  const ids: string[] = [];
  let cursor = '';
  for (;;) {
    const res = await call<CallsPage>(`${baseUrl}/api/v1/calls?limit=${limit}&cursor=${cursor}`, { token });
    if (res.status !== 200) throw new Error(`status ${res.status}: ${res.text}`);
    ids.push(...res.body.data.calls.map((c) => c.id));
    if (!res.body.data.has_more) return ids;
    cursor = res.body.data.next_cursor ?? '';
    between?.();
  }
}
