import type { FastifySchema } from 'fastify';
import type { SwaggerTransform } from '@fastify/swagger';
import { ApiKeyScopeLabels, ApiKeyScopes } from '@persona/contract';

/**
 * What /api/docs (the OpenAPI document) says about API keys (ADR 094): the two bearer schemes, and
 * on every route a key may call its scope (`x-api-key-scope`, the `apiKey` scheme and a line of the
 * description). Routes without a scope are documented with the portal session only.
 */
const scopeList = ApiKeyScopes.map((s) => `- \`${s}\`: ${ApiKeyScopeLabels[s]}`).join('\n');

export const apiKeyOpenApi = {
  document: {
    components: {
      securitySchemes: {
        portalSession: {
          type: 'http' as const,
          scheme: 'bearer',
          description: 'The portal: `Authorization: Bearer <APP_KEY>:<session token>` (from /api/login).',
        },
        apiKey: {
          type: 'http' as const,
          scheme: 'bearer',
          description: `Servers: \`Authorization: Bearer ps_live_<prefix>_<secret>\`, an account API key made in the portal (API keys page; shown once). A key acts as its account with only its scopes; a route names the scope it needs (\`x-api-key-scope\`) and every other route answers a key with 403. An expired or revoked key is a 401. Scopes:\n${scopeList}`,
        },
      },
    },
  },

  /** Wraps the zod transform: adds the key's scheme and scope to the routes that name one. */
  transform<S extends FastifySchema>(inner: SwaggerTransform<S>): SwaggerTransform<S> {
    return (input) => {
      const out = inner(input);
      const scope = input.route.config?.apiKeyScope;
      if (!scope) return out;
      const schema = out.schema as FastifySchema & { description?: string; security?: unknown; 'x-api-key-scope'?: string };
      return {
        ...out,
        schema: {
          ...schema,
          security: [{ portalSession: [] }, { apiKey: [] }],
          'x-api-key-scope': scope,
          description: `${schema.description ? `${schema.description}\n\n` : ''}API keys: scope \`${scope}\`.`,
        } as FastifySchema,
      };
    };
  },
};
