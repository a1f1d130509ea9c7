import { genericColumns, normalizeV1Generic, v1GenericKeys } from '../../normalize/index.js';
import type { OrderSetting, StreamDescriptor } from './stream-descriptor.js';

/** A config-declared v1 list endpoint (`streams:` in the config file). */
interface CustomStreamSpec {
  readonly name: string;
  readonly path: string;
  readonly recordsKey: string;
  readonly paging: 'cursor' | 'offset' | 'page' | 'none';
  readonly idField: string;
  readonly createdAtField?: string;
  /** Undefined: `upstream.order`. */
  readonly order?: OrderSetting;
}

/** Extra v1 endpoints (SMS, forms, call flows...) sync through the generic normalizer, no code needed. */
export function customStream(spec: CustomStreamSpec): StreamDescriptor {
  return {
    name: spec.name,
    api: 'v1',
    path: spec.path,
    recordsKey: spec.recordsKey,
    paging: spec.paging,
    order: spec.order,
    source: 'v1',
    table: { stream: spec.name, table: spec.name, columns: genericColumns },
    normalize: normalizeV1Generic(spec.idField, spec.createdAtField),
    keys: v1GenericKeys(spec.idField, spec.createdAtField),
  };
}
