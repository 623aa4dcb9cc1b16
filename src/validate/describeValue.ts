import { PERSONAL_FIELDS, SENSITIVE_FIELDS } from '../rows/fields.js';

const MAX_ECHO = 40;

/** A value as a message quotes it: JSON-quoted (so quotes and newlines stay visible) and cut to about 40 characters. */
export function quoteValue(text: string): string {
  return JSON.stringify(text.length > MAX_ECHO ? `${text.slice(0, MAX_ECHO)}…` : text);
}

/** `31/12/1980` -> `99/99/9999`: enough to see the mistake, nothing of the person. */
export function shapeOf(text: string): string {
  return text.replace(/\p{Nd}/gu, '9').replace(/\p{L}/gu, 'a');
}

/**
 * `message, got "value"`, except that a message must not leak personal data into results.csv or a log:
 * identity and bank numbers (SENSITIVE_FIELDS) are not echoed at all, dates of birth, e-mails and phones
 * (PERSONAL_FIELDS) only by their shape.
 */
export function withValue(message: string, field: string, text: string): string {
  if (SENSITIVE_FIELDS.has(field)) return message;
  if (PERSONAL_FIELDS.has(field)) return `${message}, got something shaped ${quoteValue(shapeOf(text))}`;
  return `${message}, got ${quoteValue(text)}`;
}
