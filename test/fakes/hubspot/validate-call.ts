import type { FakeProperty } from './store.js';

/** One property error in HubSpot's shape (`Property values were not valid: [...]`). */
export interface PropertyError {
  readonly isValid: false;
  readonly message: string;
  readonly error: string;
  readonly name: string;
}

/** Checks an input's properties as HubSpot does: known names, enumeration options, dates, numbers. */
export function validateCallProperties(properties: Record<string, unknown>, known: ReadonlyMap<string, FakeProperty>): PropertyError[] {
  const errors: PropertyError[] = [];
  for (const [name, value] of Object.entries(properties)) {
    const property = known.get(name);
    if (property === undefined) {
      errors.push({ isValid: false, message: `Property "${name}" does not exist`, error: 'PROPERTY_DOESNT_EXIST', name });
      continue;
    }
    const text = String(value);
    if (property.options !== undefined && !property.options.includes(text)) {
      errors.push({
        isValid: false,
        message: `${text} was not one of the allowed options: [${property.options.map((option) => `label: "${option}"\nvalue: "${option}"`).join(', ')}]`,
        error: 'INVALID_OPTION',
        name,
      });
    } else if (property.type === 'datetime' && !isDate(text)) {
      errors.push({
        isValid: false,
        message: `${text} is not a valid datetime; expected a UTC timestamp in milliseconds or an ISO 8601 date`,
        error: 'INVALID_DATETIME',
        name,
      });
    } else if (property.type === 'number' && !/^-?\d+(\.\d+)?$/.test(text)) {
      errors.push({ isValid: false, message: `${text} was not a valid number.`, error: 'INVALID_LONG', name });
    }
  }
  return errors;
}

function isDate(text: string): boolean {
  if (/^\d+$/.test(text)) return true;
  return /^\d{4}-\d{2}-\d{2}/.test(text) && !Number.isNaN(Date.parse(text));
}
