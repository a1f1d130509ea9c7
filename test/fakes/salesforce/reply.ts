/** A routed answer. */
export interface Reply {
  readonly status: number;
  readonly body: unknown;
  readonly headers?: Readonly<Record<string, string>>;
}

/** Salesforce's REST error body: an array of `{ message, errorCode, fields? }`. */
export function apiError(status: number, errorCode: string, message: string, fields?: readonly string[]): Reply {
  return { status, body: [{ message, errorCode, ...(fields === undefined ? {} : { fields }) }] };
}

export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
