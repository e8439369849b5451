import { queryOptions, useQuery } from '@tanstack/react-query';
import { ZFunctionTemplatesResponse, type TFunctionTemplate } from '@persona/contract';
import { apiRequest } from '../../../lib/api-client';

/** GET /api/function_templates: empty canvas, example, weather, SSML. */
export async function listFunctionTemplates(): Promise<TFunctionTemplate[]> {
  return (await apiRequest('/api/function_templates', { schema: ZFunctionTemplatesResponse })).templates;
}

export const functionTemplatesQueryOptions = () =>
  queryOptions({ queryKey: ['functions', 'templates'] as const, queryFn: listFunctionTemplates, staleTime: Infinity });

export function useFunctionTemplates() {
  return useQuery(functionTemplatesQueryOptions());
}
