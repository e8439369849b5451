import { beforeEach, describe, expect, it, vi } from 'vitest';
import { configure, fireEvent, render, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { MemoryRouter } from 'react-router';
import { ThemeProvider } from '@mui/material/styles';
import { EngineMessages as M, LiveMessages, ProviderLookupMessages as L, SetupModeLabel, SimpleModeLlmModels } from '@persona/contract';
import type { TAvatar } from '@persona/contract';
import { theme } from '../../../app/theme';
import { json, mockFetch, type Handler } from '../../../test/fetch-mock';
import { authStore } from '../../../lib/auth-store';
import { getPublicConfig, PublicConfigContext, setPublicConfig } from '../../../lib/config';
import { BrainTab } from '../components/editor/brain-tab';
import { EditorSessionProvider, useEditorSession } from '../components/editor/editor-session';
import { account, agent } from './fixtures';

// The speech forms are another part's: a marker shows where they are rendered.
vi.mock('../components/editor/brain/speech-forms', () => ({ SpeechForms: () => <div data-testid="speech-forms" /> }));

configure({ asyncUtilTimeout: 15_000 });
vi.setConfig({ testTimeout: 30_000 });

beforeEach(() => {
  setPublicConfig({ allowRegistration: false, appKey: 'app-key', companyName: 'Acme', docsUrl: '/react/docs', productName: 'Persona Studio' });
  authStore.setSession({ token: 'tok', expiryDate: new Date(Date.now() + 3_600_000).toISOString(), userName: 'U', userType: 'USER', adminProxy: false }, { isPersistent: false });
});

/** Saves without the Confirm Update dialog (the editor panel's part); shows the editor's tab. */
function SaveProbe() {
  const session = useEditorSession();
  return (
    <>
      <button type="button" onClick={() => void session.saveNow({ skipConfirm: true })}>
        probe-save
      </button>
      <output data-testid="editor-tab">{session.tab}</output>
    </>
  );
}

/**
 * The real speech forms pick the first voice of the list (a voice is required in Simple and
 * Composite); here they are a marker, so the avatar comes with a stored voice.
 */
function withVoice(a: TAvatar): TAvatar {
  const customData = (a.customData ?? {}) as Record<string, unknown>;
  const pipeline = (customData.agent_pipeline_config ?? {}) as Record<string, Record<string, unknown> | undefined>;
  return { ...a, customData: { ...customData, agent_pipeline_config: { ...pipeline, tts: { voice_id: 'en-US-JennyNeural', ...pipeline.tts } } } } as TAvatar;
}

function renderBrain(stored: TAvatar, api: Record<string, Handler> = {}) {
  const a = withVoice(stored);
  const fetch = mockFetch({ 'POST /api/add_avatar_v2': () => json({ status: 'OK', agent: { ...a, version: a.version + 1 } }), ...api });
  const client = new QueryClient({ defaultOptions: { queries: { retry: false } } });
  render(
    <ThemeProvider theme={theme}>
      <QueryClientProvider client={client}>
        <MemoryRouter>
          <PublicConfigContext.Provider value={getPublicConfig()}>
            <EditorSessionProvider mode={{ kind: 'edit', id: a.id }} agent={a} initialAvatarConfig={{}} initialClientConfig={null} isAdminProxy={false} onCreated={() => {}}>
              <BrainTab />
              <SaveProbe />
            </EditorSessionProvider>
          </PublicConfigContext.Provider>
        </MemoryRouter>
      </QueryClientProvider>
    </ThemeProvider>,
  );
  return fetch;
}

async function savedPayload(fetch: ReturnType<typeof mockFetch>) {
  await waitFor(() => expect(fetch.requests.some((r) => r.path === '/api/add_avatar_v2')).toBe(true));
  const call = fetch.fetchMock.mock.calls.find(([url]) => String(url).endsWith('/api/add_avatar_v2'));
  return JSON.parse(String(((call?.[1] as RequestInit).body as FormData).get('json'))) as Record<string, unknown> & { customData: { agent_pipeline_config: Record<string, Record<string, unknown>> } };
}

const composite = (over: Partial<TAvatar> = {}) => agent({ setupMode: 1, ...over });
const engineSelect = () => screen.getByRole('combobox', { name: 'Avatar Engine' });

async function chooseEngine(user: ReturnType<typeof userEvent.setup>, name: string) {
  await user.click(engineSelect());
  await user.click(await screen.findByRole('option', { name: new RegExp(`^${name}`) }));
}

describe('Brain tab: mode and engine', () => {
  it("offers the four modes with the 'currently set' marker, the mode's engines, and the speech sections only for Simple and Composite", async () => {
    const user = userEvent.setup();
    renderBrain(composite());
    for (const tab of ['FOUNDATIONS', 'KNOWLEDGE BASE', 'FUNCTIONS']) expect(screen.getByRole('tab', { name: tab })).toBeInTheDocument();
    const modes = screen.getByRole('radiogroup', { name: 'Mode' });
    for (const label of Object.values(SetupModeLabel)) expect(within(modes).getByRole('radio', { name: new RegExp(label.replace(/[()]/g, '.')) })).toBeInTheDocument();
    expect(within(modes).getByRole('radio', { name: /Composite - Any STT\/LLM\/TTS currently set/ })).toBeChecked();
    expect(screen.getByTestId('speech-forms')).toBeInTheDocument();

    await user.click(engineSelect());
    expect((await screen.findAllByRole('option')).map((o) => o.textContent)).toEqual([
      'Echo Test (currently set)',
      'Large Language Model',
      'REST Endpoint',
      'Google Dialogflow CX',
      'Google Dialogflow ES',
    ]);
    await user.keyboard('{Escape}');

    await user.click(within(modes).getByRole('radio', { name: /Speech to Speech/ }));
    expect(engineSelect()).toHaveTextContent('Persona Studio Realtime');
    expect(screen.queryByTestId('speech-forms')).not.toBeInTheDocument();
    await user.click(within(modes).getByRole('radio', { name: /3rd Party AI/ }));
    expect(engineSelect()).toHaveTextContent('TEN');
    expect(screen.queryByTestId('speech-forms')).not.toBeInTheDocument();
    // Every engine offered runs on this server; TEN is explained, not flagged.
    expect(screen.queryByText(/do not run on this server yet/)).not.toBeInTheDocument();
    expect(screen.getByRole('region', { name: 'Your agent' })).toBeInTheDocument();
    await user.click(engineSelect());
    expect((await screen.findAllByRole('option')).map((o) => o.textContent)).toEqual(['TEN', 'ElevenLabs Conversational AI', 'Custom STT/LLM/TTS']);
  });

  it('shows the help of the field clicked in the info panel', async () => {
    const user = userEvent.setup();
    renderBrain(composite());
    const panel = screen.getByRole('complementary', { name: 'Field help' });
    expect(within(panel).getByRole('heading', { name: 'Foundations' })).toBeInTheDocument();
    await user.click(screen.getByRole('radio', { name: /Composite/ }));
    expect(within(panel).getByRole('heading', { name: 'Mode' })).toBeInTheDocument();
    await chooseEngine(user, 'Large Language Model');
    await user.click(screen.getByRole('textbox', { name: 'Prompt' }));
    expect(within(panel).getByRole('heading', { name: 'Prompt' })).toBeInTheDocument();
    expect(within(panel).getByText(/15–35 words/)).toBeInTheDocument();
    expect(within(panel).getByText('Why is this important?')).toBeInTheDocument();
    await user.click(screen.getByRole('textbox', { name: 'Max Tokens' }));
    expect(within(panel).getByRole('heading', { name: 'Max Tokens' })).toBeInTheDocument();
  });

  it('a mode change resets the form to the saved avatar', async () => {
    const user = userEvent.setup();
    renderBrain(composite({ nlpEngine: 1, restEndPointURL: 'https://saved.example/api', restApiKey: '••••9876' }));
    const url = screen.getByRole('textbox', { name: 'REST Endpoint URL' });
    expect(url).toHaveValue('https://saved.example/api');
    await user.clear(url);
    await user.paste('https://edited.example');
    await user.click(screen.getByRole('radio', { name: /Simple/ }));
    expect(engineSelect()).toHaveTextContent('REST Endpoint');
    expect(screen.getByRole('textbox', { name: 'REST Endpoint URL' })).toHaveValue('https://saved.example/api');
    expect(screen.getByRole('textbox', { name: 'REST API Key' })).toHaveValue('••••9876');
  });
});

describe('Brain tab: bring your own agent (TEN, Custom STT/LLM/TTS)', () => {
  const withKeys = (encKeys: { id: number; name: string; defaultKey: boolean }[]) => {
    const a = account();
    return { 'GET /api/account_info': () => json({ ...a, accountDetails: { ...a.accountDetails, encKeys } }) };
  };
  const keys = [
    { id: 11, name: 'Default key', defaultKey: true },
    { id: 12, name: 'Agent key', defaultKey: false },
  ];

  it('explains the agent API: the key, the token (sub = this avatar), the dispatch address, what visitors see, the reference', async () => {
    setPublicConfig({ allowRegistration: false, appKey: 'app-key', companyName: 'Acme', docsUrl: '/react/docs', productName: 'Persona Studio', publicUrl: 'https://studio.example.com' });
    const user = userEvent.setup();
    renderBrain(agent({ id: 42, setupMode: 3, nlpEngine: 12, nlpEngineName: 'Custom STT/LLM/TTS' }), withKeys(keys));
    expect(engineSelect()).toHaveTextContent('Custom STT/LLM/TTS');
    const section = screen.getByRole('region', { name: 'Your agent' });
    expect(within(section).getByText(/the face of an agent you run yourself/)).toBeInTheDocument();
    expect(within(section).getByTestId('agent-avatar-id')).toHaveTextContent('"42"');
    expect(within(section).getByTestId('agent-dispatch-url')).toHaveTextContent('wss://studio.example.com/api/agent/ws');
    expect(within(section).getByText(LiveMessages['agent-not-connected'])).toBeInTheDocument();
    const reference = within(section).getByRole('link', { name: /Agent API reference and example agent/ });
    expect(reference).toHaveAttribute('href', '/docs/agent-api');
    // Opened aside: the editor keeps its unsaved changes.
    expect(reference).toHaveAttribute('target', '_blank');
    // No key on the avatar: no agent can connect; the button leads to ADVANCED.
    expect(within(section).getByTestId('agent-key-missing')).toHaveTextContent(/no encryption key yet/);
    expect(screen.getByTestId('editor-tab')).not.toHaveTextContent('advanced');
    await user.click(within(section).getByRole('button', { name: 'Open ADVANCED' }));
    await waitFor(() => expect(screen.getByTestId('editor-tab')).toHaveTextContent('advanced'));
  });

  it('the account’s default key is refused for agents; a key of the owner’s own is named; TEN gets the same explanation', async () => {
    const user = userEvent.setup();
    renderBrain(agent({ setupMode: 3, nlpEngine: 12, encKeyId: 11 } as Partial<TAvatar>), withKeys(keys));
    const section = screen.getByRole('region', { name: 'Your agent' });
    expect(await within(section).findByTestId('agent-key-default')).toHaveTextContent(/default key cannot authenticate an agent/);
    await chooseEngine(user, 'TEN');
    expect(screen.getByRole('region', { name: 'Your agent' })).toBeInTheDocument();
    await chooseEngine(user, 'ElevenLabs Conversational AI');
    expect(screen.queryByRole('region', { name: 'Your agent' })).not.toBeInTheDocument();
  });

  it('with a key of the owner’s own it says which private key signs the tokens', async () => {
    renderBrain(agent({ setupMode: 3, nlpEngine: 8, encKeyId: 12 } as Partial<TAvatar>), withKeys(keys));
    await waitFor(() => expect(within(screen.getByRole('region', { name: 'Your agent' })).getByTestId('agent-key-ok')).toHaveTextContent(/private key of Agent key/));
    expect(screen.queryByTestId('agent-key-missing')).not.toBeInTheDocument();
  });
});

describe('Brain tab: LLM', () => {
  it('starts on Groq, loads the models with the key on blur, clears them with a base URL change, offers assistants for OpenAI in Composite', async () => {
    const user = userEvent.setup();
    const fetch = renderBrain(composite(), {
      'POST /api/lookups/llm_models': (req) => json({ status: 'OK', models: (req.body as { url: string }).url.includes('openai.com') ? ['gpt-4o', 'gpt-4o-mini'] : ['llama-3.3-70b-versatile'] }),
      'POST /api/lookups/llm_assistants': () => json({ status: 'OK', assistants: [{ id: 'asst_1', name: 'Helper' }] }),
    });
    await chooseEngine(user, 'Large Language Model');
    expect(screen.getByRole('combobox', { name: 'Base URL' })).toHaveTextContent('Groq');
    expect(screen.queryByRole('radiogroup', { name: 'Interaction Type' })).not.toBeInTheDocument();
    const key = screen.getByLabelText('API Key');
    await user.click(key);
    await user.paste('gsk_test_key_1');
    await user.tab();
    await waitFor(() => expect(fetch.requests.find((r) => r.path === '/api/lookups/llm_models')?.body).toMatchObject({ avatarId: 101, url: 'https://api.groq.com/openai/v1', llmAPIKey: 'gsk_test_key_1' }));
    await user.click(screen.getByRole('combobox', { name: 'Model' }));
    await user.click(await screen.findByRole('option', { name: 'llama-3.3-70b-versatile' }));
    expect(screen.getByRole('combobox', { name: 'Model' })).toHaveValue('llama-3.3-70b-versatile');

    // Base URL change: model and key cleared; OpenAI in Composite offers the interaction type.
    await user.click(screen.getByRole('combobox', { name: 'Base URL' }));
    await user.click(await screen.findByRole('option', { name: /^OpenAI/ }));
    expect(screen.getByRole('combobox', { name: 'Model' })).toHaveValue('');
    expect(screen.getByLabelText('API Key')).toHaveValue('');
    const type = screen.getByRole('radiogroup', { name: 'Interaction Type' });
    await user.click(within(type).getByRole('radio', { name: 'Assistant' }));
    await user.click(screen.getByLabelText('API Key'));
    await user.paste('sk-openai-key');
    await user.tab();
    await user.click(screen.getByRole('combobox', { name: 'Assistant' }));
    expect(await screen.findByRole('option', { name: 'Helper (asst_1)' })).toBeInTheDocument();
    await user.keyboard('{Escape}');

    // Save: the messages for what is missing.
    await user.click(screen.getByRole('button', { name: 'probe-save' }));
    expect(await screen.findByText(M.llmModelRequired)).toBeInTheDocument();
    expect(screen.getByText(M.assistantRequired)).toBeInTheDocument();
    expect(fetch.requests.some((r) => r.path === '/api/add_avatar_v2')).toBe(false);
  });

  it('Simple mode: no key, Groq fixed and the first model picked; saved with the prompt and memory', async () => {
    const user = userEvent.setup();
    const fetch = renderBrain(agent());
    await chooseEngine(user, 'Large Language Model');
    expect(screen.queryByLabelText('API Key')).not.toBeInTheDocument();
    expect(screen.getByRole('combobox', { name: 'Base URL' })).toHaveAttribute('aria-disabled', 'true');
    await waitFor(() => expect(screen.getByRole('combobox', { name: 'Model' })).toHaveValue(SimpleModeLlmModels[0]));
    await user.click(screen.getByRole('textbox', { name: 'Prompt' }));
    await user.paste('You are the museum guide.');
    await user.click(screen.getByRole('radio', { name: 'Disabled' }));
    await user.click(screen.getByRole('textbox', { name: 'Max Tokens' }));
    await user.paste('0');
    await user.tab();
    expect(await screen.findByText(M.maxTokens)).toBeInTheDocument();
    await user.clear(screen.getByRole('textbox', { name: 'Max Tokens' }));
    await user.paste('256');
    await user.click(screen.getByRole('button', { name: 'probe-save' }));
    const sent = await savedPayload(fetch);
    expect(sent).toMatchObject({ nlpEngine: 10, setupMode: 0 });
    expect(sent.customData.agent_pipeline_config.llm).toMatchObject({
      provider: 'groq',
      base_url: 'https://api.groq.com/openai/v1',
      model: SimpleModeLlmModels[0],
      instructions: 'You are the museum guide.',
      summary_enabled: false,
      max_tokens: 256,
    });
  });

  it('says the URL or key is wrong when the models cannot be listed', async () => {
    const user = userEvent.setup();
    renderBrain(composite(), { 'POST /api/lookups/llm_models': () => json({ status: 'FAIL', errors: [L.invalidUrlOrKey], failReason: 7 }, 400) });
    await chooseEngine(user, 'Large Language Model');
    await user.click(screen.getByLabelText('API Key'));
    await user.paste('wrong');
    await user.tab();
    expect(await screen.findByText(L.invalidUrlOrKey)).toBeInTheDocument();
  });

  it('keeps a stored key masked and sends the mask back', async () => {
    const user = userEvent.setup();
    const fetch = renderBrain(
      composite({
        nlpEngine: 10,
        customData: { transcriptionStreaming: false, words_per_sec: 3, summaryEnabled: true, collection_ids: [], agent_pipeline_config: { llm: { base_url: 'https://api.groq.com/openai/v1', api_key: '••••1234', model: 'llama-3.1-8b-instant', summary_enabled: true } } },
      } as Partial<TAvatar>),
      { 'POST /api/lookups/llm_models': () => json({ status: 'OK', models: ['llama-3.1-8b-instant'] }) },
    );
    expect(screen.getByLabelText('API Key')).toHaveValue('••••1234');
    expect(screen.getByLabelText('API Key')).toHaveAttribute('type', 'text');
    await waitFor(() => expect(fetch.requests.find((r) => r.path === '/api/lookups/llm_models')?.body).toMatchObject({ avatarId: 101, llmAPIKey: '••••1234' }));
    await user.click(screen.getByRole('textbox', { name: 'Prompt' }));
    await user.paste('Hi');
    await user.click(screen.getByRole('button', { name: 'probe-save' }));
    expect((await savedPayload(fetch)).customData.agent_pipeline_config.llm).toMatchObject({ api_key: '••••1234', instructions: 'Hi' });
  });
});

describe('Brain tab: REST, Dialogflow, Realtime', () => {
  it('REST: the messages, then the fields the runtime reads', async () => {
    const user = userEvent.setup();
    const fetch = renderBrain(composite());
    await chooseEngine(user, 'REST Endpoint');
    await user.click(screen.getByRole('button', { name: 'probe-save' }));
    expect(await screen.findByText(M.restUrlRequired)).toBeInTheDocument();
    expect(screen.getByText(M.restKeyRequired)).toBeInTheDocument();
    await user.click(screen.getByRole('textbox', { name: 'REST Endpoint URL' }));
    await user.paste('not a url');
    await user.tab();
    expect(await screen.findByText(M.notAValidUrl)).toBeInTheDocument();
    await user.clear(screen.getByRole('textbox', { name: 'REST Endpoint URL' }));
    await user.paste('https://bot.example.com/chat');
    await user.click(screen.getByLabelText('REST API Key'));
    await user.paste('rest-key-1');
    expect(screen.getByLabelText('REST API Key')).toHaveAttribute('type', 'password');
    await user.click(screen.getByRole('button', { name: 'probe-save' }));
    expect(await savedPayload(fetch)).toMatchObject({ nlpEngine: 1, restEndPointURL: 'https://bot.example.com/chat', restApiKey: 'rest-key-1', agentLanguage: 'en' });
  });

  it('Dialogflow CX: uploads the key file (project filled from it), refuses a file that is not a key, needs agent and region', async () => {
    const user = userEvent.setup();
    const fetch = renderBrain(composite());
    await chooseEngine(user, 'Google Dialogflow CX');
    const input = screen.getByLabelText('JSON Key File');
    fireEvent.change(input, { target: { files: [new File(['{"hello": 1}'], 'notes.json', { type: 'application/json' })] } });
    expect(await screen.findByText(M.dialogflowKeyInvalid)).toBeInTheDocument();
    const key = JSON.stringify({ type: 'service_account', project_id: 'acme-bot', client_email: 'bot@acme-bot.iam.gserviceaccount.com', private_key: '-----BEGIN PRIVATE KEY-----\nx\n-----END PRIVATE KEY-----\n' });
    fireEvent.change(input, { target: { files: [new File([key], 'acme-bot.json', { type: 'application/json' })] } });
    await waitFor(() => expect(screen.getByRole('textbox', { name: 'Project Id' })).toHaveValue('acme-bot'));
    expect(screen.getByTestId('dialogflow-key-state')).toHaveTextContent('Ready to save: acme-bot.json.');
    await user.click(screen.getByRole('button', { name: 'probe-save' }));
    expect(await screen.findByText(M.dialogflowAgentRequired)).toBeInTheDocument();
    expect(screen.getByText(M.dialogflowRegionRequired)).toBeInTheDocument();
    await user.click(screen.getByRole('textbox', { name: 'Agent Id' }));
    await user.paste('4a1d1b1e-0000-4000-8000-000000000000');
    await user.click(screen.getByRole('textbox', { name: 'Region Id' }));
    await user.paste('europe-west1');
    await user.click(screen.getByRole('button', { name: 'probe-save' }));
    expect(await savedPayload(fetch)).toMatchObject({ nlpEngine: 3, projectId: 'acme-bot', jsonKey: key, agentId: '4a1d1b1e-0000-4000-8000-000000000000', regionId: 'europe-west1' });
  });

  it("Realtime: the URL's models and voices, and the messages", async () => {
    const user = userEvent.setup();
    renderBrain(composite());
    await user.click(screen.getByRole('radio', { name: /Speech to Speech/ }));
    await user.click(screen.getByRole('combobox', { name: 'Voice' }));
    expect((await screen.findAllByRole('option')).map((o) => o.textContent)).toEqual(['Select a voice', 'alloy', 'echo', 'shimmer', 'ash', 'ballad', 'coral', 'sage', 'verse']);
    await user.keyboard('{Escape}');
    await user.click(screen.getByRole('combobox', { name: 'Realtime URL' }));
    await user.click(await screen.findByRole('option', { name: /^Gemini/ }));
    expect(screen.getByRole('combobox', { name: 'Model' })).toHaveTextContent('gemini-2.0-flash-exp');
    expect(screen.getByRole('combobox', { name: 'Voice' })).toHaveTextContent('Aoede');
    await user.click(screen.getByRole('button', { name: 'probe-save' }));
    expect(await screen.findByText(M.realtimeKeyRequired)).toBeInTheDocument();
  });
});

describe('Brain tab: ElevenLabs agent check', () => {
  const WEBRTC_NOTE = 'The live avatar connects to ElevenLabs by WebSocket here: WebRTC needs ElevenLabs\u2019 own media servers, so WebSocket is what runs.';
  const answers: Record<string, () => Response> = {
    agent_public_0001: () => json({ status: 'OK', state: 'public' }),
    agent_private_001: () => json({ status: 'OK', state: 'private' }),
    agent_needs_key_1: () => json({ status: 'OK', state: 'invalid_api_key', message: L.agentKeyRequired }),
    agent_missing_001: () => json({ status: 'OK', state: 'invalid_agent_id', message: L.agentNotFound }),
    agent_broken_0001: () => json({ status: 'FAIL', errors: [L.agentCheckFailed], failReason: 7 }, 502),
  };
  const api = {
    'POST /api/lookups/elevenlabs_agent': (req: { body: unknown }) => {
      const body = req.body as { agent_id: string; api_key?: string };
      if (body.agent_id === 'agent_private_001' && !body.api_key) return json({ status: 'OK', state: 'invalid_api_key', message: L.agentKeyRequired });
      return (answers[body.agent_id] ?? (() => json({ status: 'OK', state: 'invalid_agent_id' })))();
    },
  };

  it('goes idle → checking → public / private / invalid_api_key / invalid_agent_id with the messages; the key only when needed', async () => {
    const user = userEvent.setup();
    const fetch = renderBrain(agent({ setupMode: 3, nlpEngine: 8 }), api);
    await chooseEngine(user, 'ElevenLabs Conversational AI');
    const status = () => screen.getByTestId('elevenlabs-status');
    const id = screen.getByRole('textbox', { name: 'Agent ID' });
    expect(status()).toHaveAttribute('data-state', 'idle');
    expect(screen.getByRole('combobox', { name: 'Connection Type' })).toHaveTextContent('WebRTC');
    // Issue 15: the live avatar runs the WebSocket protocol whatever is chosen; WebRTC says so.
    expect(screen.getByText(WEBRTC_NOTE)).toBeInTheDocument();
    await user.click(id);
    await user.paste('agent_1');
    await user.click(screen.getByRole('button', { name: 'probe-save' }));
    expect(await screen.findByText(M.agentIdTooShort)).toBeInTheDocument();
    expect(fetch.requests.some((r) => r.path === '/api/lookups/elevenlabs_agent')).toBe(false);

    const setId = async (value: string) => {
      await user.clear(id);
      await user.paste(value);
      expect(status()).toHaveAttribute('data-state', 'checking');
    };
    await setId('agent_public_0001');
    await waitFor(() => expect(status()).toHaveAttribute('data-state', 'public'));
    expect(status()).toHaveTextContent('Public agent: no API key needed.');
    expect(screen.queryByLabelText('API Key')).not.toBeInTheDocument();

    await setId('agent_missing_001');
    await waitFor(() => expect(status()).toHaveAttribute('data-state', 'invalid_agent_id'));
    expect(status()).toHaveTextContent(L.agentNotFound);

    await setId('agent_broken_0001');
    await waitFor(() => expect(status()).toHaveAttribute('data-state', 'invalid_agent_id'));
    expect(status()).toHaveTextContent(L.agentCheckFailed);

    await setId('agent_private_001');
    await waitFor(() => expect(status()).toHaveAttribute('data-state', 'invalid_api_key'));
    expect(status()).toHaveTextContent(L.agentKeyRequired);
    await user.click(screen.getByLabelText('API Key'));
    await user.paste('sk_0123456789abcdef');
    await user.tab();
    await waitFor(() => expect(status()).toHaveAttribute('data-state', 'private'));
    expect(status()).toHaveTextContent('Private agent: your API key is accepted.');
    expect(screen.getByLabelText('API Key')).toBeInTheDocument();

    await user.click(screen.getByRole('combobox', { name: 'Connection Type' }));
    await user.click(await screen.findByRole('option', { name: 'WebSocket' }));
    await waitFor(() => expect(screen.queryByText(WEBRTC_NOTE)).not.toBeInTheDocument());
    await user.click(screen.getByRole('button', { name: 'probe-save' }));
    const sent = await savedPayload(fetch);
    expect(sent).toMatchObject({ nlpEngine: 11, setupMode: 3 });
    expect(sent.customData.agent_pipeline_config.third_party).toEqual({ agent_id: 'agent_private_001', api_key: 'sk_0123456789abcdef', is_public: false, connection_type: 'websocket' });
  });

  it('says which key problem a refused key is', async () => {
    const user = userEvent.setup();
    renderBrain(agent({ setupMode: 3, nlpEngine: 8 }), {
      'POST /api/lookups/elevenlabs_agent': () => json({ status: 'OK', state: 'invalid_api_key', message: L.agentKeyInvalid }),
    });
    await chooseEngine(user, 'ElevenLabs Conversational AI');
    await user.click(screen.getByRole('textbox', { name: 'Agent ID' }));
    await user.paste('agent_0123456789');
    await waitFor(() => expect(screen.getByTestId('elevenlabs-status')).toHaveAttribute('data-state', 'invalid_api_key'));
    expect(screen.getByTestId('elevenlabs-status')).toHaveTextContent(L.agentKeyRequired);
    await user.click(screen.getByLabelText('API Key'));
    await user.paste('sk_wrong_but_long_enough');
    await user.tab();
    await waitFor(() => expect(screen.getByTestId('elevenlabs-status')).toHaveTextContent(L.agentKeyInvalid));
  });
});
