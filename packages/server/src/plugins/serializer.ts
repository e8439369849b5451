import fastJson from 'fast-json-stringify';
import type { FastifySerializerCompiler } from 'fastify/types/schema.js';
import { serializerCompiler as zodSerializerCompiler } from 'fastify-type-provider-zod';
import { z } from 'zod';

type Serializer = (data: unknown) => string;

/** The JSON schema of what a zod schema outputs, or undefined when JSON schema cannot say it (dates, transforms…). */
export function outputJsonSchema(schema: unknown): Record<string, unknown> | undefined {
  try {
    return z.toJSONSchema(schema as z.ZodType, { io: 'output', unrepresentable: 'throw', target: 'draft-7' }) as Record<string, unknown>;
  } catch {
    return undefined;
  }
}

/**
 * Response serializers compiled once per route from its zod response schema: the schema is
 * turned into JSON schema and fast-json-stringify writes the answer from it. As with zod's
 * serializer, only the properties the schema declares are written (nothing else leaks), but no
 * zod parse runs per answer. Schemas JSON schema cannot express fall back to zod's serializer.
 * Each serializer is compiled on its route's first answer, so start-up does not pay for routes
 * nobody calls.
 */
export const serializerCompiler: FastifySerializerCompiler<unknown> = (route) => {
  let serialize: Serializer | undefined;
  const compile = (): Serializer => {
    const json = outputJsonSchema(route.schema);
    if (json) {
      try {
        return fastJson(json) as Serializer;
      } catch {
        // a construct fast-json-stringify does not support: zod's serializer below
      }
    }
    return zodSerializerCompiler(route as Parameters<typeof zodSerializerCompiler>[0]) as Serializer;
  };
  return (data: unknown) => (serialize ??= compile())(data);
};
