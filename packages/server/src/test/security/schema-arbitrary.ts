// fast-check arbitraries generated from a route's request schema (zod → JSON Schema): values that
// fit the schema's shape, and hostile ones in their place — wrong types, huge and odd strings,
// deep nesting, numbers out of range, prototype keys — mixed at every level.
import fc from 'fast-check';
import { z } from 'zod';

export type Json = null | boolean | number | string | Json[] | { [k: string]: Json };
export interface JsonSchema {
  type?: string | string[];
  properties?: Record<string, JsonSchema>;
  additionalProperties?: JsonSchema | boolean;
  required?: string[];
  items?: JsonSchema;
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  allOf?: JsonSchema[];
  enum?: Json[];
  const?: Json;
  format?: string;
  pattern?: string;
  minimum?: number;
  exclusiveMinimum?: number;
  maximum?: number;
  exclusiveMaximum?: number;
  minLength?: number;
  maxLength?: number;
  minItems?: number;
  maxItems?: number;
  default?: Json;
}

/** The JSON Schema of a zod schema (its input side), or undefined. */
export function toJsonSchema(schema: unknown): JsonSchema | undefined {
  if (!schema || typeof schema !== 'object') return undefined;
  if (schema instanceof z.ZodType || '_zod' in schema) {
    try {
      return z.toJSONSchema(schema as z.ZodType, { io: 'input', unrepresentable: 'any' }) as JsonSchema;
    } catch {
      return {};
    }
  }
  return schema as JsonSchema;
}

/** An object that carries `__proto__` / `constructor.prototype` as own keys (as JSON.parse makes them). */
const protoKeys = (inner: Json = { polluted: true }): Json => JSON.parse(`{"__proto__":${JSON.stringify(inner)},"constructor":{"prototype":${JSON.stringify(inner)}}}`) as Json;

const deepArray = (n: number): Json => JSON.parse(`${'['.repeat(n)}${']'.repeat(n)}`) as Json;
const deepObject = (n: number): Json => JSON.parse(`${'{"a":'.repeat(n)}1${'}'.repeat(n)}`) as Json;

const hostileStrings: Json[] = [
  '',
  ' ',
  '\u0000',
  'a\u0000b',
  '\ud800',
  '\u202e\u0041\u0301',
  '🧑‍💻'.repeat(50),
  'x'.repeat(70_000),
  '%00',
  '../../../etc/passwd',
  "'; drop table users; --",
  '{{7*7}}${7*7}',
  '__proto__',
  'constructor',
  '3000000000',
  '-1',
  '1e309',
  'NaN',
  'true',
  'null',
  'http://127.0.0.1:9/',
  'javascript:alert(1)',
];
const hostileNumbers: Json[] = [-1, 0, -0, 1.5, 2 ** 31, -(2 ** 31) - 1, 2 ** 53 + 2, Number.MAX_VALUE, -Number.MAX_VALUE, 1e-300, 8.64e15 + 1];

/** Any value of the wrong kind. */
export const hostile: fc.Arbitrary<Json> = fc.oneof(
  fc.constantFrom<Json>(...hostileStrings, ...hostileNumbers, null, true, false, [], {}),
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.string({ unit: 'grapheme', maxLength: 40 }),
  fc.integer({ min: -(2 ** 40), max: 2 ** 40 }),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.constantFrom(deepArray(2000), deepObject(2000), protoKeys(), protoKeys({ isAdmin: true, userType: 'ADMIN' })),
  fc.array(fc.constantFrom<Json>(...hostileStrings.slice(0, 6), ...hostileNumbers.slice(0, 4)), { maxLength: 60 }),
);

const pick = (s: JsonSchema): JsonSchema[] => {
  if (s.anyOf ?? s.oneOf) return (s.anyOf ?? s.oneOf)!;
  if (!s.allOf?.length) return [s];
  const { allOf, ...rest } = s;
  return [Object.assign(rest, ...allOf) as JsonSchema];
};

export interface ArbitraryOptions {
  /** Values a field of this name takes in its valid branch (the owner's real ids, so calls reach stored objects). */
  fieldValues?: Record<string, Json[]>;
  /** Likelihood (weight against 1) of a hostile value at any node. */
  hostileWeight?: number;
}

/** An arbitrary for a JSON Schema node: valid-ish values of its shape, hostile values in their place. */
export function fromSchema(schema: JsonSchema | undefined, opts: ArbitraryOptions = {}, depth = 0, field?: string): fc.Arbitrary<Json> {
  const valid = validOf(schema, opts, depth, field);
  const w = opts.hostileWeight ?? 1;
  return fc.oneof({ arbitrary: valid, weight: 4 }, { arbitrary: hostile, weight: w });
}

function validOf(schema: JsonSchema | undefined, opts: ArbitraryOptions, depth: number, field?: string): fc.Arbitrary<Json> {
  if (!schema || depth > 5) return fc.constant('a');
  const known = field ? opts.fieldValues?.[field] : undefined;
  const options = pick(schema);
  if (options.length > 1) return fc.oneof(...options.map((o) => validOf(o, opts, depth, field)));
  const s = options[0]!;
  if (s.const !== undefined) return fc.constant(s.const);
  if (s.enum?.length) return fc.constantFrom(...s.enum);
  const types = [s.type ?? (s.properties ? 'object' : undefined)].flat().filter((t): t is string => !!t);
  const arbs = types.map((type) => byType(type, s, opts, depth));
  const base = arbs.length === 0 ? fc.constant<Json>('a') : arbs.length === 1 ? arbs[0]! : fc.oneof(...arbs);
  return known?.length ? fc.oneof({ arbitrary: fc.constantFrom(...known), weight: 3 }, { arbitrary: base, weight: 1 }) : base;
}

function byType(type: string, s: JsonSchema, opts: ArbitraryOptions, depth: number): fc.Arbitrary<Json> {
  switch (type) {
    case 'null':
      return fc.constant(null);
    case 'boolean':
      return fc.boolean();
    case 'integer': {
      const min = s.minimum ?? (s.exclusiveMinimum !== undefined ? s.exclusiveMinimum + 1 : -(2 ** 31));
      const max = s.maximum ?? (s.exclusiveMaximum !== undefined ? s.exclusiveMaximum - 1 : 2 ** 31);
      const lo = Math.max(min, Number.MIN_SAFE_INTEGER);
      const hi = Math.min(max, Number.MAX_SAFE_INTEGER);
      return fc.oneof(fc.integer({ min: Math.max(lo, -(2 ** 31)), max: Math.min(hi, 2 ** 31 - 1) }), fc.constantFrom(lo, hi, lo - 1, hi + 1));
    }
    case 'number':
      return fc.oneof(fc.double({ min: s.minimum ?? -1e12, max: s.maximum ?? 1e12, noNaN: true }), fc.constantFrom(s.minimum ?? 0, s.maximum ?? 1));
    case 'string':
      return stringOf(s);
    case 'array': {
      const item = fromSchema(s.items, opts, depth + 1);
      return fc.array(item, { minLength: Math.min(s.minItems ?? 0, 3), maxLength: Math.min(Math.max(s.maxItems ?? 4, s.minItems ?? 0), 4) });
    }
    case 'object': {
      const props = s.properties ?? {};
      const required = new Set(s.required ?? []);
      const keys = Object.keys(props);
      if (keys.length === 0) {
        // A free-form record: a few keys of any value.
        return fc.dictionary(fc.oneof(fc.string({ maxLength: 12 }), fc.constantFrom('__proto__', 'constructor', 'toString')), fromSchema({}, opts, depth + 1), { maxKeys: 4 }) as fc.Arbitrary<Json>;
      }
      const record = fc.record(Object.fromEntries(keys.map((k) => [k, fromSchema(props[k], opts, depth + 1, k)])), {
        requiredKeys: keys.filter((k) => required.has(k)),
      });
      // Now and then an unknown key or a prototype key beside the known ones.
      return fc.tuple(record, fc.constantFrom<Json | undefined>(undefined, undefined, undefined, protoKeys(), { extra: 'x'.repeat(10_000) })).map(([obj, extra]) => {
        if (!extra || typeof extra !== 'object') return obj as Json;
        const out = { ...(obj as Record<string, Json>) };
        for (const [k, v] of Object.entries(extra)) Object.defineProperty(out, k, { value: v, enumerable: true, writable: true, configurable: true });
        return out as Json;
      });
    }
    default:
      return fc.constant('a');
  }
}

function stringOf(s: JsonSchema): fc.Arbitrary<string> {
  const maxLength = Math.min(s.maxLength ?? 64, 200);
  const minLength = Math.min(s.minLength ?? 0, maxLength);
  if (s.format === 'email') return fc.emailAddress();
  if (s.format === 'uri' || s.format === 'url') return fc.webUrl();
  if (s.format === 'date-time') return fc.date({ noInvalidDate: true, min: new Date(0), max: new Date(4e12) }).map((d) => d.toISOString());
  if (s.pattern) {
    try {
      return fc.stringMatching(new RegExp(s.pattern)).filter((v) => v.length <= (s.maxLength ?? Infinity) && v.length >= (s.minLength ?? 0));
    } catch {
      // A pattern fast-check cannot read: plain strings below.
    }
  }
  return fc.oneof(
    fc.string({ minLength, maxLength }),
    fc.string({ unit: 'grapheme', minLength, maxLength }),
    fc.constant('x'.repeat(s.maxLength !== undefined ? s.maxLength + 1 : 5000)),
  );
}
