/**
 * `Retry-After` as milliseconds from `nowMs`: delta-seconds (`120`) or an HTTP date
 * (`Wed, 21 Oct 2015 07:28:00 GMT`). Undefined when absent or unreadable; a date in the past is 0.
 */
export function parseRetryAfter(value: string | string[] | undefined, nowMs: number): number | undefined {
  const text = (Array.isArray(value) ? value[0] : value)?.trim();
  if (text === undefined || text === '') return undefined;
  if (/^\d+(\.\d+)?$/.test(text)) return Math.round(Number(text) * 1000);
  if (!/[a-z]/i.test(text)) return undefined;
  const at = Date.parse(text);
  if (Number.isNaN(at)) return undefined;
  return Math.max(0, at - nowMs);
}
