import { beforeEach, describe, expect, it, vi } from 'vitest';
import { configure, fireEvent, render, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { ThemeProvider } from '@mui/material/styles';
import { MemoryRouter } from 'react-router';
import { AvatarMessages, LlmBaseUrls, PlatformServiceMessages, ProviderLookupMessages, RealtimeBaseUrls, SimpleModeLlmModels, SpeechMessages, type TAvatar } from '@persona/contract';
import { theme } from '../../../app/theme';
import { json, mockFetch, type Handler } from '../../../test/fetch-mock';
import { authStore } from '../../../lib/auth-store';
import { setPublicConfig } from '../../../lib/config';
import { showToast } from '../../../lib/toast';
import { AdvancedTab } from '../components/editor/advanced-tab';
import { BrainTab } from '../components/editor/brain-tab';
import { EditorSessionProvider, useEditorSession } from '../components/editor/editor-session';
import { agent, multipartJson } from './fixtures';

// The Brain tab with its real speech forms, inside the editor session: what the session makes of
// the tab (unsaved changes, where a refused save or tab change leads, what Advanced shows).

vi.mock('../../../lib/toast', () => ({ showToast: vi.fn(async () => undefined), closeToast: vi.fn(async () => undefined) }));

configure({ asyncUtilTimeout: 15_000 });
vi.setConfig({ testTimeout: 30_000 });

beforeEach(() => {
  vi.mocked(showToast).mockClear();
  setPublicConfig({ allowRegistration: false, appKey: 'app-key', companyName: 'Acme', docsUrl: '/react/docs', productName: 'Persona Studio' });
  authStore.setSession({ token: 'tok', expiryDate: new Date(Date.now() + 3_600_000).toISOString(), userName: 'U', userType: 'USER', adminProxy: false }, { isPersistent: false });
});

/** What the editor panel shows of the session, and its tab switch and save (without Confirm Update). */
function Editor() {
  const session = useEditorSession();
  return (
    <>
      <p data-testid="changes">{session.isDirty ? 'Unsaved changes' : 'No changes'}</p>
      <button type="button" onClick={() => void session.changeTab('brain')}>
        open Brain
      </button>
      <button type="button" onClick={() => void session.changeTab('advanced')}>
        open Advanced
      </button>
      <button type="button" onClick={() => void session.saveNow({ skipConfirm: true })}>
        save
      </button>
      {session.tab === 'brain' ? <BrainTab /> : null}
      {session.tab === 'advanced' ? <AdvancedTab account={undefined} /> : null}
    </>
  );
}

const hostedVoices = () =>
  json({ status: 'OK', ttsProvider: 3, ttsVoices: [{ id: 'en-US-JennyNeural', name: 'en-US-JennyNeural' }, { id: 'kal', name: 'Kal — offline', offline: true }] });

async function openEditor(stored: TAvatar, api: Record<string, Handler> = {}) {
  const fetch = mockFetch({
    'POST /api/lookups/tts_voices': hostedVoices,
    'POST /api/lookups/stt_languages': () => json({ status: 'OK', sttProvider: 'google', languages: [{ code: 'en-US', name: 'English (United States)', models: ['long'], locations: ['global'] }] }),
    'POST /api/add_avatar_v2': () => json({ status: 'OK', agent: { ...stored, version: stored.version + 1 } }),
    ...api,
  });
  const client = new QueryClient({ defaultOptions: { queries: { retry: false } } });
  render(
    <ThemeProvider theme={theme}>
      <QueryClientProvider client={client}>
        <MemoryRouter>
          <EditorSessionProvider mode={{ kind: 'edit', id: stored.id }} agent={stored} initialAvatarConfig={{}} initialClientConfig={null} isAdminProxy={false} onCreated={() => {}}>
            <Editor />
          </EditorSessionProvider>
        </MemoryRouter>
      </QueryClientProvider>
    </ThemeProvider>,
  );
  await userEvent.click(screen.getByRole('button', { name: 'open Brain' }));
  await screen.findByRole('tab', { name: 'FOUNDATIONS' });
  return fetch;
}

const withPipeline = (pipeline: Record<string, unknown>, over: Partial<TAvatar> = {}) =>
  agent({ ...over, customData: { transcriptionStreaming: false, words_per_sec: 3, summaryEnabled: true, collection_ids: [], agent_pipeline_config: pipeline } } as Partial<TAvatar>);
const changes = () => screen.getByTestId('changes');
const tts = () => screen.getByRole('region', { name: 'Text to Speech' });
const voice = () => within(tts()).getByRole('combobox', { name: 'Voice' });

async function choose(label: string, option: string | RegExp) {
  fireEvent.mouseDown(screen.getByRole('combobox', { name: label }));
  await userEvent.click(await screen.findByRole('option', { name: option }));
}

async function savedPayload(fetch: ReturnType<typeof mockFetch>) {
  await waitFor(() => expect(fetch.requests.some((r) => r.path === '/api/add_avatar_v2')).toBe(true));
  const call = fetch.fetchMock.mock.calls.find(([url]) => String(url).endsWith('/api/add_avatar_v2'));
  return (await multipartJson(call?.[1] as RequestInit)) as Record<string, unknown> & { customData: { agent_pipeline_config: Record<string, Record<string, unknown>> } };
}

describe('Brain tab in the editor: opening it changes nothing', () => {
  it('takes the voice picked on load as the saved state: no unsaved changes', async () => {
    // A stored avatar without a voice: the list's first voice is shown as chosen.
    await openEditor(withPipeline({ llm: { api_key: '••••1234' } }));
    await waitFor(() => expect(voice()).toHaveTextContent('en-US-JennyNeural'));
    expect(changes()).toHaveTextContent('No changes');
  });

  it('a voice picked after the user changed provider and key is their change, and is saved', async () => {
    const fetch = await openEditor(withPipeline({ tts: { provider: 3, voice_id: 'en-US-JennyNeural' } }, { setupMode: 1, nlpEngine: 0 }), {
      'POST /api/lookups/tts_voices': (r) =>
        (r.body as { ttsProvider: number }).ttsProvider === 2 ? json({ status: 'OK', ttsProvider: 2, ttsVoices: [{ id: 'rachel', name: 'Rachel' }] }) : hostedVoices(),
    });
    await waitFor(() => expect(voice()).toHaveTextContent('en-US-JennyNeural'));
    expect(changes()).toHaveTextContent('No changes');
    await choose('Text to Speech provider', 'ElevenLabs');
    await userEvent.type(within(tts()).getByLabelText('ElevenLabs API Key'), 'sk_eleven_key');
    await userEvent.tab();
    await waitFor(() => expect(voice()).toHaveTextContent('Rachel'));
    expect(changes()).toHaveTextContent('Unsaved changes');
    await userEvent.click(screen.getByRole('button', { name: 'save' }));
    expect((await savedPayload(fetch)).customData.agent_pipeline_config.tts).toMatchObject({ provider: 2, api_key: 'sk_eleven_key', voice_id: 'rachel' });
  });

  it('keeps the stored voice when the voices cannot be listed on load', async () => {
    await openEditor(withPipeline({ tts: { provider: 2, api_key: '••••abcd', voice_id: 'rachel' } }, { setupMode: 1, nlpEngine: 0 }), {
      'POST /api/lookups/tts_voices': () => json({ status: 'FAIL', errors: [ProviderLookupMessages.voicesFailed], failReason: 7 }, 400, 'Bad Request'),
    });
    expect(await within(tts()).findByText(ProviderLookupMessages.voicesFailed)).toBeInTheDocument();
    expect(voice()).toHaveTextContent('rachel');
    expect(changes()).toHaveTextContent('No changes');
  });
});

describe('Brain tab in the editor: the ElevenLabs agent check on open changes nothing', () => {
  // A stored 3rd-party avatar: a private ElevenLabs agent with its (masked) key.
  const storedAgent = () =>
    withPipeline({ third_party: { agent_id: 'agent_private_001', api_key: '••••wxyz', is_public: false, connection_type: 'webrtc' } }, { setupMode: 3, nlpEngine: 11 });
  const checkSays = (state: string, message?: string) => ({ 'POST /api/lookups/elevenlabs_agent': () => json({ status: 'OK', state, ...(message ? { message } : {}) }) });
  const agentStatus = () => screen.getByTestId('elevenlabs-status');

  it('takes the verdict on load as the saved state: a refused key is shown, and only the user’s changes count', async () => {
    const fetch = await openEditor(storedAgent(), checkSays('invalid_api_key', ProviderLookupMessages.agentKeyInvalid));
    await waitFor(() => expect(agentStatus()).toHaveAttribute('data-state', 'invalid_api_key'));
    expect(agentStatus()).toHaveTextContent(ProviderLookupMessages.agentKeyInvalid);
    expect(fetch.requests.find((r) => r.path === '/api/lookups/elevenlabs_agent')?.body).toMatchObject({ avatarId: 101, agent_id: 'agent_private_001', api_key: '••••wxyz' });
    expect(changes()).toHaveTextContent('No changes');

    // A change of theirs, undone: nothing is left to save.
    await choose('Connection Type', 'WebSocket');
    expect(changes()).toHaveTextContent('Unsaved changes');
    await choose('Connection Type', 'WebRTC');
    expect(changes()).toHaveTextContent('No changes');
  });

  it('an agent found public on load clears the key in the form without an unsaved change; saved with the user’s change', async () => {
    const fetch = await openEditor(storedAgent(), checkSays('public'));
    await waitFor(() => expect(agentStatus()).toHaveAttribute('data-state', 'public'));
    expect(screen.queryByLabelText('API Key')).toBeNull();
    expect(changes()).toHaveTextContent('No changes');

    await choose('Connection Type', 'WebSocket');
    expect(changes()).toHaveTextContent('Unsaved changes');
    await userEvent.click(screen.getByRole('button', { name: 'save' }));
    expect((await savedPayload(fetch)).customData.agent_pipeline_config.third_party).toEqual({ agent_id: 'agent_private_001', api_key: '', is_public: true, connection_type: 'websocket' });
  });
});

describe('Brain tab in the editor: Simple mode’s Groq model on an older avatar', () => {
  // Saved before Simple mode fixed Groq and its models: another provider's URL, key and model.
  const openAi = LlmBaseUrls.find((b) => b.provider === 'openai')!.url;
  const olderSimple = () =>
    withPipeline({ llm: { provider: 'openai', base_url: openAi, api_key: '••••1234', model: 'gpt-4o', instructions: 'You are the museum guide.' } }, { setupMode: 0, nlpEngine: 10 });
  const model = () => screen.getByRole('combobox', { name: 'Model' });

  it('shows Groq and the first Simple model as the saved state: no unsaved changes, a save of the other tabs keeps the stored brain', async () => {
    const fetch = await openEditor(olderSimple());
    await waitFor(() => expect(model()).toHaveValue(SimpleModeLlmModels[0]));
    expect(screen.getByRole('combobox', { name: 'Base URL' })).toHaveTextContent(/Groq/);
    await waitFor(() => expect(voice()).toHaveTextContent('en-US-JennyNeural'));
    expect(changes()).toHaveTextContent('No changes');

    await userEvent.click(screen.getByRole('button', { name: 'save' }));
    expect((await savedPayload(fetch)).customData.agent_pipeline_config.llm).toEqual({ provider: 'openai', base_url: openAi, api_key: '••••1234', model: 'gpt-4o', instructions: 'You are the museum guide.' });
  });

  it('a change of the user’s to the brain saves it with Groq and the Simple model shown', async () => {
    const fetch = await openEditor(olderSimple());
    await waitFor(() => expect(model()).toHaveValue(SimpleModeLlmModels[0]));
    await userEvent.type(screen.getByRole('textbox', { name: 'Prompt' }), ' Be brief.');
    expect(changes()).toHaveTextContent('Unsaved changes');
    await userEvent.click(screen.getByRole('button', { name: 'save' }));
    expect((await savedPayload(fetch)).customData.agent_pipeline_config.llm).toMatchObject({
      provider: 'groq',
      base_url: 'https://api.groq.com/openai/v1',
      model: SimpleModeLlmModels[0],
      instructions: 'You are the museum guide. Be brief.',
    });
  });
});

describe('Brain tab in the editor: errors are shown where they are', () => {
  it('a refused tab change or save brings FOUNDATIONS up with the speech fields’ messages', async () => {
    const fetch = await openEditor(withPipeline({ tts: { provider: 3, voice_id: 'en-US-JennyNeural' } }, { setupMode: 1, nlpEngine: 0 }));
    await choose('Text to Speech provider', 'Amazon Polly');

    await userEvent.click(screen.getByRole('tab', { name: 'KNOWLEDGE BASE' }));
    expect(screen.queryByRole('region', { name: 'Text to Speech' })).toBeNull();
    await userEvent.click(screen.getByRole('button', { name: 'open Advanced' }));
    await waitFor(() => expect(screen.getByRole('tab', { name: 'FOUNDATIONS' })).toHaveAttribute('aria-selected', 'true'));
    expect(showToast).toHaveBeenCalledWith(AvatarMessages.someFieldsInvalidTabs, 'error', expect.anything());
    expect(within(tts()).getByText(SpeechMessages.pollyAccessKeyRequired)).toBeInTheDocument();
    expect(within(tts()).getByText(SpeechMessages.ttsRegionRequired)).toBeInTheDocument();

    await userEvent.click(screen.getByRole('tab', { name: 'FUNCTIONS' }));
    await userEvent.click(screen.getByRole('button', { name: 'save' }));
    await waitFor(() => expect(screen.getByRole('tab', { name: 'FOUNDATIONS' })).toHaveAttribute('aria-selected', 'true'));
    expect(showToast).toHaveBeenCalledWith(AvatarMessages.someFieldsInvalidSubmit, 'error', expect.anything());
    expect(within(tts()).getByText(SpeechMessages.pollySecretKeyRequired)).toBeInTheDocument();
    expect(fetch.requests.some((r) => r.path === '/api/add_avatar_v2')).toBe(false);
  });
});

describe('Advanced tab in the editor: the mode chosen on the Brain tab', () => {
  it('shows and saves the voice activity detection of the chosen mode before it is saved', async () => {
    const speechToSpeech = { url: RealtimeBaseUrls[0].url, api_key: '••••9999', model: 'gpt-4o-realtime-preview', voice_id: 'alloy' };
    const fetch = await openEditor(withPipeline({ tts: { provider: 3, voice_id: 'en-US-JennyNeural' }, speech_to_speech: speechToSpeech }));
    await userEvent.click(screen.getByRole('radio', { name: /Speech to Speech/ }));
    await userEvent.click(screen.getByRole('button', { name: 'open Advanced' }));

    const vad = await screen.findByRole('region', { name: 'Voice Activity Detection' });
    expect(within(vad).getByText('Speech to speech (realtime model) detection.')).toBeInTheDocument();
    expect(within(vad).getByRole('textbox', { name: 'Threshold' })).toHaveValue('0.5');
    expect(within(vad).queryByRole('textbox', { name: 'Min endpointing delay' })).toBeNull();
    expect(screen.queryByRole('region', { name: 'Interruptions' })).toBeNull();

    // Its rules are the chosen mode's too: the realtime threshold is checked, then saved.
    await userEvent.clear(within(vad).getByRole('textbox', { name: 'Threshold' }));
    await userEvent.type(within(vad).getByRole('textbox', { name: 'Threshold' }), '2');
    await userEvent.click(screen.getByRole('button', { name: 'save' }));
    expect(await within(vad).findByText('Must be between 0.0 and 1.0')).toBeInTheDocument();
    await userEvent.clear(within(vad).getByRole('textbox', { name: 'Threshold' }));
    await userEvent.type(within(vad).getByRole('textbox', { name: 'Threshold' }), '0.7');
    await userEvent.click(screen.getByRole('button', { name: 'save' }));
    const sent = await savedPayload(fetch);
    expect(sent).toMatchObject({ setupMode: 2, nlpEngine: 9 });
    expect(sent.customData.agent_pipeline_config.vad_options).toMatchObject({ threshold: 0.7, prefix_padding_ms: 300, silence_duration_ms: 500 });
  });
});

describe('Brain tab: the product’s own services this server lacks', () => {
  const platform = (llm: boolean, realtime: boolean) => () => json({ status: 'OK', llm, realtime, tts: null, stt: null });
  const simple = () => withPipeline({ llm: { api_key: '' } }, { setupMode: 0, nlpEngine: 10 });
  const realtime = (apiKey: string) =>
    withPipeline({ speech_to_speech: { url: RealtimeBaseUrls[0].url, api_key: apiKey, model: '', voice_id: '', instructions: '', greeting: '' } }, { setupMode: 2, nlpEngine: 9 });

  it('Simple mode says so when the server has no language model of its own', async () => {
    await openEditor(simple(), { 'GET /api/lookups/platform': platform(false, true) });
    expect(await screen.findByTestId('platform-llm-missing')).toHaveTextContent(PlatformServiceMessages.llmMissing);
  });

  it('Simple mode with the server’s model configured: no notice', async () => {
    const fetch = await openEditor(simple(), { 'GET /api/lookups/platform': platform(true, false) });
    await waitFor(() => expect(fetch.requests.some((r) => r.path === '/api/lookups/platform')).toBe(true));
    await screen.findByRole('combobox', { name: 'Base URL' });
    expect(screen.queryByTestId('platform-llm-missing')).toBeNull();
  });

  it('a realtime avatar without a key says the server has no realtime of its own; with a key of its own, nothing', async () => {
    await openEditor(realtime(''), { 'GET /api/lookups/platform': platform(true, false) });
    expect(await screen.findByTestId('platform-realtime-missing')).toHaveTextContent(PlatformServiceMessages.realtimeMissing);
    await userEvent.click(screen.getByLabelText('API Key'));
    await userEvent.paste('sk-live-0123456789');
    await waitFor(() => expect(screen.queryByTestId('platform-realtime-missing')).toBeNull());
  });
});
