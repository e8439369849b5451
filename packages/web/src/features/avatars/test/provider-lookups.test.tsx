import type { ReactNode } from 'react';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { renderHook, waitFor } from '@testing-library/react';
import { beforeEach, describe, expect, it } from 'vitest';
import { ProviderLookupMessages as M } from '@persona/contract';
import { json, mockFetch } from '../../../test/fetch-mock';
import { authStore } from '../../../lib/auth-store';
import { setPublicConfig } from '../../../lib/config';
import { useLlmModels } from '../api/list-llm-models';
import { ttsVoicesQueryOptions, useTtsVoices } from '../api/list-tts-voices';
import { useElevenLabsAgentCheck } from '../api/check-elevenlabs-agent';
import { useSttLanguages } from '../api/list-stt-languages';
import { keyFingerprint, lookupErrorMessage, lookupFailureReason } from '../lib/provider-lookups';

beforeEach(() => {
  setPublicConfig({ allowRegistration: false, appKey: 'app-key', companyName: 'Acme', docsUrl: '/react/docs', productName: 'Persona Studio' });
  authStore.setSession({ token: 'tok', expiryDate: new Date(Date.now() + 3_600_000).toISOString(), userName: 'U', userType: 'USER', adminProxy: false }, { isPersistent: false });
});

function wrapper() {
  const client = new QueryClient({ defaultOptions: { queries: { retry: false } } });
  return ({ children }: { children: ReactNode }) => <QueryClientProvider client={client}>{children}</QueryClientProvider>;
}

describe('provider look-up calls', () => {
  it('posts the form values and returns the models', async () => {
    const { requests } = mockFetch({ 'POST /api/lookups/llm_models': () => json({ status: 'OK', models: ['gpt-4o'] }) });
    const { result } = renderHook(() => useLlmModels({ url: 'https://api.openai.com/v1', llmAPIKey: 'sk-abc', avatarId: 7 }), { wrapper: wrapper() });
    await waitFor(() => expect(result.current.data).toEqual(['gpt-4o']));
    expect(requests[0]).toMatchObject({ method: 'POST', path: '/api/lookups/llm_models', body: { url: 'https://api.openai.com/v1', llmAPIKey: 'sk-abc', avatarId: 7 } });
  });

  it('waits for a URL and a key', () => {
    const { requests } = mockFetch({});
    renderHook(() => useLlmModels({ url: 'https://api.openai.com/v1', llmAPIKey: '' }), { wrapper: wrapper() });
    expect(requests).toHaveLength(0);
  });

  it('keeps keys out of the query key', () => {
    const key = ttsVoicesQueryOptions({ ttsProvider: 0, pollyAccessKey: 'AKIDSECRET', pollySecretKey: 'very/secret' }).queryKey;
    expect(JSON.stringify(key)).not.toContain('SECRET');
    expect(JSON.stringify(key)).not.toContain('very/secret');
    expect(keyFingerprint('a')).not.toBe(keyFingerprint('b'));
    expect(keyFingerprint('')).toBe('');
  });

  it('shows the server’s message for a failed look-up', async () => {
    mockFetch({ 'POST /api/lookups/tts_voices': () => json({ status: 'FAIL', errors: [M.voicesFailed], failReason: 7, reason: 'unauthorized' }, 400, 'Bad Request') });
    const { result } = renderHook(() => useTtsVoices({ ttsProvider: 2, elevenLabsAPIKey: 'wrong' }), { wrapper: wrapper() });
    await waitFor(() => expect(result.current.isError).toBe(true));
    expect(lookupErrorMessage(result.current.error, 'fallback')).toBe(M.voicesFailed);
    expect(lookupFailureReason(result.current.error)).toBe('unauthorized');
    expect(lookupErrorMessage(new Error('x'), M.voicesFailed)).toBe(M.voicesFailed);
  });

  it('checks an ElevenLabs agent only from 12 characters', async () => {
    const { requests } = mockFetch({ 'POST /api/lookups/elevenlabs_agent': () => json({ status: 'OK', state: 'private' }) });
    const short = renderHook(() => useElevenLabsAgentCheck({ agent_id: 'agent_short' }), { wrapper: wrapper() });
    expect(short.result.current.fetchStatus).toBe('idle');
    const { result } = renderHook(() => useElevenLabsAgentCheck({ agent_id: 'agent_0123456789', api_key: 'sk_0123456789abcdef' }), { wrapper: wrapper() });
    await waitFor(() => expect(result.current.data).toEqual({ state: 'private' }));
    expect(requests).toHaveLength(1);
  });

  it('lists Google STT languages without a key, Azure only with key and region', async () => {
    const { requests } = mockFetch({ 'POST /api/lookups/stt_languages': () => json({ status: 'OK', sttProvider: 'google', languages: [{ code: 'en-US', name: 'English (United States)', models: ['long'], locations: ['global'] }] }) });
    const google = renderHook(() => useSttLanguages({ sttProvider: 'google' }), { wrapper: wrapper() });
    await waitFor(() => expect(google.result.current.data?.[0]?.code).toBe('en-US'));
    renderHook(() => useSttLanguages({ sttProvider: 'azure', sttAPIKey: 'k' }), { wrapper: wrapper() });
    expect(requests).toHaveLength(1);
  });
});
