import type { z } from 'zod';

/**
 * A cell's value when a rule certainly accepts it, as the rule would output it; undefined when it may not (zod then
 * judges it and words the issue). A row of valid cells is the common case, and zod's parse of a field costs about a
 * microsecond of objects and steps for what is often a length or a pattern.
 */
export type FastRule = (text: string) => string | undefined;

/**
 * The same verdict as a plain zod schema's, as a predicate: strings with length and pattern checks (`regex`, `email`,
 * an ISO `date`), enums, and either made optional. Undefined for anything else (a transform, a pipe, a refinement, a
 * format with more to it than its pattern), which is then always left to zod: a rule never passes here what zod
 * would refuse.
 */
export function plainAccept(schema: z.ZodType): ((value: unknown) => boolean) | undefined {
  const def = schema.def as unknown as PlainDef;
  switch (def.type) {
    case 'optional': {
      const inner = def.innerType && plainAccept(def.innerType);
      return inner && ((value) => value === undefined || inner(value));
    }
    case 'enum': {
      const values = new Set(Object.values(def.entries ?? {}));
      return (value) => values.has(value as string);
    }
    case 'string':
      return plainString(def);
    default:
      return undefined;
  }
}

interface PlainDef {
  type: string;
  innerType?: z.ZodType;
  entries?: Record<string, string | number>;
  coerce?: boolean;
  checks?: Array<{ _zod: { def: CheckDef } }>;
  // A string format (z.email(), z.iso.date()) is its own first check.
  check?: string;
  format?: string;
  pattern?: RegExp;
}

interface CheckDef {
  check: string;
  format?: string;
  pattern?: RegExp;
  minimum?: number;
  maximum?: number;
  length?: number;
}

const PATTERN_ONLY_FORMATS = new Set(['regex', 'email', 'date']);

function plainString(def: PlainDef): ((value: unknown) => boolean) | undefined {
  if (def.coerce) return undefined;
  const checks: CheckDef[] = (def.checks ?? []).map((check) => check._zod.def);
  if (def.check !== undefined) checks.unshift(def as CheckDef);
  // Every check must hold, so the lengths fold into one range and the patterns into one list: one closure per
  // schema, run for every cell of every row.
  let min = 0;
  let max = Number.POSITIVE_INFINITY;
  const patterns: RegExp[] = [];
  for (const check of checks) {
    switch (check.check) {
      case 'min_length':
        min = Math.max(min, check.minimum!);
        break;
      case 'max_length':
        max = Math.min(max, check.maximum!);
        break;
      case 'length_equals':
        min = Math.max(min, check.length!);
        max = Math.min(max, check.length!);
        break;
      case 'string_format':
        if (check.pattern === undefined || !PATTERN_ONLY_FORMATS.has(check.format ?? '')) return undefined;
        patterns.push(check.pattern);
        break;
      default:
        return undefined;
    }
  }
  return (value) => {
    if (typeof value !== 'string' || value.length < min || value.length > max) return false;
    for (let i = 0; i < patterns.length; i++) {
      const pattern = patterns[i]!;
      pattern.lastIndex = 0;
      if (!pattern.test(value)) return false;
    }
    return true;
  };
}

/** A plain schema as a FastRule: the text itself when accepted (such a schema outputs its input). */
export function plainRule(schema: z.ZodType): FastRule | undefined {
  const accept = plainAccept(schema);
  return accept && ((text) => (accept(text) ? text : undefined));
}

/**
 * Rules one after the other, as zod's `.pipe()`: each a FastRule, or a schema that must be plain. Undefined when
 * one is neither (then the field always goes to zod).
 */
export function chain(...rules: Array<FastRule | z.ZodType | undefined>): FastRule | undefined {
  const steps: FastRule[] = [];
  for (const rule of rules) {
    const step = rule === undefined || typeof rule === 'function' ? rule : plainRule(rule);
    if (step === undefined) return undefined;
    steps.push(step);
  }
  return (text) => {
    let value: string | undefined = text;
    for (const step of steps) {
      value = step(value);
      if (value === undefined) return undefined;
    }
    return value;
  };
}

/**
 * An object schema's parse when every key is plain, certainly accepted, in zod's output: the shape's keys in order,
 * only those given. The values come by their key's place in the shape (undefined: not given), as a row's checks
 * collect them: nothing is looked up by name. Undefined when it may fail (a required key absent, a value refused), so
 * that zod's issues word it; always for a shape with a key that is not plain, or an object with more to it than its
 * keys (a refinement of the whole, a catchall for unknown keys).
 */
export function plainValues<T>(
  object: z.ZodObject,
): ((values: readonly (string | undefined)[]) => T | undefined) | undefined {
  const def = object.def as unknown as { checks?: unknown[]; catchall?: unknown };
  if ((def.checks?.length ?? 0) > 0 || def.catchall !== undefined) return undefined;
  // Parallel arrays, walked by index: this runs for every row.
  const keys: string[] = [];
  const accepts: Array<(value: unknown) => boolean> = [];
  const optional: boolean[] = [];
  for (const [key, schema] of Object.entries(object.shape as Record<string, z.ZodType>)) {
    const accept = plainAccept(schema);
    if (accept === undefined) return undefined;
    keys.push(key);
    accepts.push(accept);
    optional.push((schema.def as { type: string }).type === 'optional');
  }
  // Members in the schema's order, as zod gives them: the body goes on the wire as it is, and a service that honours
  // Idempotency-Key compares the body of a repeated key byte for byte (an earlier version's, after an upgrade).
  return (values) => {
    const out: Record<string, unknown> = {};
    for (let i = 0; i < keys.length; i++) {
      const value = values[i];
      if (value === undefined) {
        if (!optional[i]) return undefined;
        continue;
      }
      if (!accepts[i]!(value)) return undefined;
      out[keys[i]!] = value;
    }
    return out as T;
  };
}
