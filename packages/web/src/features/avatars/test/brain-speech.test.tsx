import type { ReactNode } from 'react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { fireEvent, render, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { FormProvider, useForm } from 'react-hook-form';
import { zodResolver } from '@hookform/resolvers/zod';
import { MemoryRouter } from 'react-router';
import { z } from 'zod';
import { PlatformSpeechMessages, ProviderLookupMessages, SpeechMessages as M, type TAvatar } from '@persona/contract';
import { json, mockFetch, type Handler } from '../../../test/fetch-mock';
import { authStore } from '../../../lib/auth-store';
import { setPublicConfig } from '../../../lib/config';
import { showToast } from '../../../lib/toast';
import { SpeechForms } from '../components/editor/brain/speech-forms';
import { applySpeechValues, refineSpeech, speechValuesOf, sttChoices, ttsChoices, type SpeechValues } from '../lib/speech-form';
import { agent as makeAgent } from './fixtures';

vi.mock('../../../lib/toast', () => ({ showToast: vi.fn(async () => undefined), closeToast: vi.fn(async () => undefined) }));

beforeEach(() => {
  setPublicConfig({ allowRegistration: false, appKey: 'app-key', companyName: 'Acme', docsUrl: '/react/docs', productName: 'Persona Studio' });
  authStore.setSession({ token: 'tok', expiryDate: new Date(Date.now() + 3_600_000).toISOString(), userName: 'U', userType: 'USER', adminProxy: false }, { isPersistent: false });
});
afterEach(() => vi.mocked(showToast).mockClear());

type Values = SpeechValues & { setupMode: number; nlpEngine: number };
const schema = z
  .object({ setupMode: z.number(), nlpEngine: z.number() })
  .loose()
  .superRefine((v, ctx) => refineSpeech(v as unknown as Values, ctx));

let submitted: Values | null = null;
function Harness({ values }: { values: Values }) {
  const form = useForm<Values>({ defaultValues: values, resolver: zodResolver(schema) as never, mode: 'onTouched' });
  return (
    <FormProvider {...form}>
      <SpeechForms />
      <button type="button" onClick={form.handleSubmit((v) => (submitted = v))}>
        Save
      </button>
    </FormProvider>
  );
}

function renderForms(agentOver: Partial<TAvatar>, api: Record<string, Handler> = {}) {
  submitted = null;
  const fetch = mockFetch({
    'POST /api/lookups/tts_voices': () =>
      json({ status: 'OK', ttsProvider: 3, ttsVoices: [{ id: 'en-US-JennyNeural', name: 'en-US-JennyNeural' }, { id: 'kal', name: 'Kal — offline', offline: true }] }),
    'POST /api/lookups/stt_languages': () => json({ status: 'OK', sttProvider: 'google', languages: [{ code: 'en-US', name: 'English (United States)', models: ['long'], locations: ['global'] }] }),
    ...api,
  });
  const a = makeAgent(agentOver);
  const client = new QueryClient({ defaultOptions: { queries: { retry: false } } });
  const wrap = (node: ReactNode) => (
    <QueryClientProvider client={client}>
      <MemoryRouter>{node}</MemoryRouter>
    </QueryClientProvider>
  );
  const utils = render(wrap(<Harness values={{ ...speechValuesOf(a), setupMode: a.setupMode, nlpEngine: a.nlpEngine }} />));
  return { ...utils, ...fetch };
}

const pipeline = (p: Record<string, unknown>) => ({ customData: { agent_pipeline_config: p } }) as Partial<TAvatar>;
const composite = (p: Record<string, unknown> = {}) => ({ setupMode: 1, nlpEngine: 10, ...pipeline(p) }) as Partial<TAvatar>;
const stt = () => screen.getByRole('region', { name: 'Speech to Text' });
const tts = () => screen.getByRole('region', { name: 'Text to Speech' });

async function choose(label: string, option: string | RegExp) {
  fireEvent.mouseDown(screen.getByRole('combobox', { name: label }));
  await userEvent.click(await screen.findByRole('option', { name: option }));
}
const save = () => userEvent.click(screen.getByRole('button', { name: 'Save' }));

describe('speech forms: modes', () => {
  it('Simple: the product’s own STT, hosted voices with the offline one marked, first voice picked', async () => {
    const { requests } = renderForms({ setupMode: 0, nlpEngine: 10 });
    expect(within(stt()).getByRole('combobox', { name: 'Speech to Text provider' })).toHaveAttribute('aria-disabled', 'true');
    expect(within(stt()).getByText('Persona Studio (Azure)')).toBeInTheDocument();
    await waitFor(() => expect(within(tts()).getByRole('combobox', { name: 'Voice' })).toHaveTextContent('en-US-JennyNeural'));
    expect(requests.find((r) => r.path === '/api/lookups/tts_voices')?.body).toMatchObject({ ttsProvider: 3, default_tts: 'azure', setupMode: 0 });
    fireEvent.mouseDown(within(tts()).getByRole('combobox', { name: 'Voice' }));
    const offline = await screen.findByRole('option', { name: /Kal — offline/ });
    expect(within(offline).getByText('Offline')).toBeInTheDocument();
  });

  it('says which voice and recogniser a Simple-mode avatar really gets on this server (issue 26)', async () => {
    const platform = (tts: unknown, stt: unknown) => ({ 'GET /api/lookups/platform': () => json({ status: 'OK', llm: true, realtime: false, tts, stt }) });
    // Nothing hosted: "Persona Studio (Azure) / en-US-JennyNeural" is spoken by the offline voice, and the tab says so.
    const bare = renderForms({ setupMode: 0, nlpEngine: 10 }, platform(null, null));
    await waitFor(() => expect(within(tts()).getByRole('combobox', { name: 'Voice' })).toHaveTextContent('en-US-JennyNeural'));
    expect(await within(tts()).findByTestId('platform-voice-note')).toHaveTextContent(PlatformSpeechMessages.voiceOffline('US English, female (CMU Arctic slt)'));
    expect(within(stt()).getByTestId('platform-stt-note')).toHaveTextContent(PlatformSpeechMessages.sttOffline);
    bare.unmount();
    // The operator's Azure: the avatar's Azure voice speaks.
    const azure = renderForms({ setupMode: 0, nlpEngine: 10 }, platform({ provider: 'azure', voice: 'en-GB-RyanNeural' }, { provider: 'deepgram' }));
    await waitFor(() => expect(within(tts()).getByTestId('platform-voice-note')).toHaveTextContent('Visitors hear en-US-JennyNeural from Microsoft Azure'));
    expect(within(stt()).getByTestId('platform-stt-note')).toHaveTextContent(PlatformSpeechMessages.sttHosted('deepgram'));
    azure.unmount();
    // Only Polly on this server: an Azure voice is not one of its voices, the operator's default speaks.
    renderForms({ setupMode: 0, nlpEngine: 10 }, platform({ provider: 'polly', voice: 'Joanna (neural)' }, null));
    await waitFor(() => expect(within(tts()).getByTestId('platform-voice-note')).toHaveTextContent('Visitors hear Joanna (neural) from Amazon Polly'));
    // The offline choice needs no note: it says what it is.
    await choose('Text to Speech provider', /Persona Studio offline/);
    expect(within(tts()).queryByTestId('platform-voice-note')).toBeNull();
  });

  it('is hidden for Speech to Speech, None, TEN and the realtime engine', () => {
    for (const over of [{ setupMode: 2, nlpEngine: 9 }, { setupMode: 3, nlpEngine: 11 }, { setupMode: 1, nlpEngine: 8 }]) {
      const { unmount } = renderForms(over as Partial<TAvatar>);
      expect(screen.queryByRole('region', { name: 'Speech to Text' })).toBeNull();
      unmount();
    }
  });
});

describe('speech forms: STT', () => {
  it('Deepgram: provider change clears the key, sets language multi, clears additional languages; key and endpoint rules', async () => {
    renderForms(composite({ stt: { provider: 2, api_key: '••••abcd', region: 'eastus', languages: 'en-US,de-DE,fr-FR', context_phrases: 'Acme' } }));
    expect(within(stt()).getByLabelText('Azure Subscription Key')).toHaveValue('••••abcd');
    expect(within(stt()).getByText('de-DE')).toBeInTheDocument();
    await choose('Speech to Text provider', 'Deepgram');
    expect(within(stt()).getByLabelText('Deepgram API Key')).toHaveValue('');
    expect(within(stt()).getByLabelText('Main language')).toHaveValue('Multilingual (multi)');
    expect(within(stt()).queryByLabelText('Additional languages')).toBeNull();
    expect(within(stt()).getByLabelText('Context phrases')).toHaveValue('');
    await userEvent.clear(within(stt()).getByLabelText('Endpoint (ms)'));
    await userEvent.type(within(stt()).getByLabelText('Endpoint (ms)'), '0');
    await save();
    expect(await within(stt()).findByText(M.deepgramKeyRequired)).toBeInTheDocument();
    expect(within(stt()).getByText(M.deepgramEndpoint)).toBeInTheDocument();
    expect(submitted).toBeNull();
  });

  it('Azure: key and region required; a masked key counts as given', async () => {
    renderForms(composite({ stt: { provider: 3, api_key: '••••abcd', languages: 'multi' } }));
    await choose('Speech to Text provider', 'Microsoft Azure Custom');
    expect(within(stt()).getByLabelText('Main language')).toHaveValue('en-US');
    await save();
    expect(await within(stt()).findByText(M.azureSttKeyRequired)).toBeInTheDocument();
    expect(within(stt()).getByText(M.sttRegionRequired)).toBeInTheDocument();
    // A provider change resets the errors (spec section 4).
    await choose('Speech to Text provider', 'Persona Studio (Google)');
    expect(within(stt()).queryByText(M.azureSttKeyRequired)).toBeNull();
    expect(within(stt()).queryByText(M.sttRegionRequired)).toBeNull();
    expect(within(stt()).queryByLabelText('Region')).toBeNull();
  });

  it('realtime avatars get one product option; Simple only the product’s own', () => {
    expect(sttChoices(1, true).map((c) => c.label)).toEqual(['Deepgram', 'Google Cloud Custom', 'Microsoft Azure Custom', 'Persona Studio', 'None']);
    expect(sttChoices(0, false).map((c) => c.label)).toEqual(['Persona Studio (Azure)']);
    expect(ttsChoices(0).every((c) => c.provider === 3)).toBe(true);
    expect(ttsChoices(0).find((c) => c.isOffline)?.defaultTts).toBe('offline');
  });

  it('Google: key file and region; a file that is not a service-account key is refused', async () => {
    renderForms(composite());
    await choose('Speech to Text provider', 'Google Cloud Custom');
    expect(within(stt()).getByLabelText('Region')).toHaveValue('global');
    await save();
    expect(await within(stt()).findByText(M.googleKeyRequired)).toBeInTheDocument();
    const input = within(stt()).getByLabelText('Google JSON key file');
    await userEvent.upload(input, new File(['{"hello": 1}'], 'wrong.json', { type: 'application/json' }));
    expect(await within(stt()).findByTestId('google-key-file')).toHaveTextContent('wrong.json');
    await save();
    expect(await within(stt()).findByText(M.googleKeyInvalid)).toBeInTheDocument();
    await userEvent.upload(input, new File([JSON.stringify({ client_email: 'a@b.iam.gserviceaccount.com', private_key: 'k' })], 'sa.json', { type: 'application/json' }));
    await waitFor(() => expect(within(stt()).queryByText(M.googleKeyInvalid)).toBeNull());
  });

  it('at most 10 additional languages: the 11th is refused with the toast', async () => {
    const ten = ['de-DE', 'fr-FR', 'es-ES', 'it-IT', 'nl-NL', 'pt-PT', 'pl-PL', 'sv-SE', 'da-DK', 'fi-FI'];
    renderForms(composite({ stt: { provider: 0, default_stt: 'google', languages: ['en-US', ...ten].join(',') } }));
    const field = within(stt()).getByLabelText('Additional languages');
    await userEvent.type(field, 'nb-NO{Enter}');
    expect(showToast).toHaveBeenCalledWith(M.maxLanguages, 'error', expect.anything());
    expect(within(stt()).queryByText('nb-NO')).toBeNull();
    expect(within(stt()).getByText('fi-FI')).toBeInTheDocument();
  });

  it('offers one product option when realtime is off: Azure and Google variants; None hides the language', async () => {
    renderForms(composite());
    fireEvent.mouseDown(within(stt()).getByRole('combobox', { name: 'Speech to Text provider' }));
    const names = (await screen.findAllByRole('option')).map((o) => o.textContent);
    expect(names).toEqual(['Deepgram', 'Google Cloud Custom', 'Microsoft Azure Custom', 'Persona Studio (Azure)', 'Persona Studio (Google)', 'None']);
    await userEvent.click(screen.getByRole('option', { name: 'None' }));
    expect(within(stt()).queryByLabelText('Main language')).toBeNull();
  });
});

describe('speech forms: TTS', () => {
  it('ElevenLabs: provider change clears keys and voice; key required; voices load on key blur; failure with Retry; first voice picked', async () => {
    let calls = 0;
    const { requests } = renderForms(composite({ tts: { provider: 1, api_key: '••••abcd', region: 'eastus', voice_id: 'en-US-GuyNeural', speed: 0.5 } }), {
      'POST /api/lookups/tts_voices': (r) => {
        const body = r.body as { ttsProvider: number };
        if (body.ttsProvider !== 2) return json({ status: 'OK', ttsProvider: body.ttsProvider, ttsVoices: [{ id: 'en-US-GuyNeural', name: 'Guy' }] });
        calls += 1;
        return calls === 1
          ? json({ status: 'FAIL', errors: [ProviderLookupMessages.voicesFailed], failReason: 7 }, 400, 'Bad Request')
          : json({ status: 'OK', ttsProvider: 2, ttsVoices: [{ id: 'rachel', name: 'Rachel' }, { id: 'adam', name: 'Adam' }] });
      },
    });
    expect(within(tts()).getByLabelText('Azure Subscription Key')).toHaveValue('••••abcd');
    await choose('Text to Speech provider', 'ElevenLabs');
    expect(within(tts()).getByLabelText('ElevenLabs API Key')).toHaveValue('');
    expect(within(tts()).getByLabelText('Speech speed')).toHaveValue('0');
    await save();
    expect(await within(tts()).findByText(M.elevenLabsKeyRequired)).toBeInTheDocument();
    expect(within(tts()).getByText(M.voiceRequired)).toBeInTheDocument();

    await userEvent.type(within(tts()).getByLabelText('ElevenLabs API Key'), 'sk_wrong_key');
    expect(requests.filter((r) => (r.body as { ttsProvider?: number } | undefined)?.ttsProvider === 2)).toHaveLength(0);
    await userEvent.tab();
    expect(await within(tts()).findByText(ProviderLookupMessages.voicesFailed)).toBeInTheDocument();
    await userEvent.click(within(tts()).getByRole('button', { name: 'Retry' }));
    await waitFor(() => expect(within(tts()).getByRole('combobox', { name: 'Voice' })).toHaveTextContent('Rachel'));
    expect(within(tts()).queryByText(ProviderLookupMessages.voicesFailed)).toBeNull();
    const sent = requests.filter((r) => (r.body as { ttsProvider?: number } | undefined)?.ttsProvider === 2);
    expect(sent.at(-1)?.body).toMatchObject({ elevenLabsAPIKey: 'sk_wrong_key' });
  });

  it('Neuphonic: speed becomes 1, must stay within -1…1 and is required; key and language required', async () => {
    renderForms(composite());
    await choose('Text to Speech provider', 'Neuphonic');
    const speed = within(tts()).getByLabelText('Speech speed');
    expect(speed).toHaveValue('1');
    await userEvent.clear(speed);
    await userEvent.type(speed, '2');
    await save();
    expect(await within(tts()).findByText(M.speedRange)).toBeInTheDocument();
    expect(within(tts()).getByText(M.neuphonicKeyRequired)).toBeInTheDocument();
    await userEvent.clear(speed);
    await save();
    expect(await within(tts()).findByText(M.speedRequired)).toBeInTheDocument();
  });

  it('Polly: access key, secret key and region required; None asks nothing', async () => {
    renderForms(composite());
    await choose('Text to Speech provider', 'Amazon Polly');
    await save();
    expect(await within(tts()).findByText(M.pollyAccessKeyRequired)).toBeInTheDocument();
    expect(within(tts()).getByText(M.pollySecretKeyRequired)).toBeInTheDocument();
    expect(within(tts()).getByText(M.ttsRegionRequired)).toBeInTheDocument();
    await choose('Text to Speech provider', 'None');
    expect(within(tts()).queryByLabelText('Speech speed')).toBeNull();
    expect(within(tts()).queryByText(M.pollyAccessKeyRequired)).toBeNull();
  });

  it('Azure: key, region and speed required', async () => {
    renderForms(composite());
    await choose('Text to Speech provider', 'Microsoft Azure');
    await userEvent.clear(within(tts()).getByLabelText('Speech speed'));
    await save();
    expect(await within(tts()).findByText(M.azureTtsKeyRequired)).toBeInTheDocument();
    expect(within(tts()).getByText(M.ttsRegionRequired)).toBeInTheDocument();
    expect(within(tts()).getByText(M.speedRequired)).toBeInTheDocument();
  });
});

describe('speech values ⇄ agent_pipeline_config', () => {
  it('keeps masked keys (the server keeps the stored one) and writes the spec’s fields', () => {
    const a = makeAgent(
      composite({
        stt: { provider: 3, api_key: '••••abcd', languages: 'multi', model: 'nova-3-general', endpointing: 250, context_phrases: 'Acme\nWidget' },
        tts: { provider: 0, api_key: '••••wxyz', secret_key: '••••1234', region: 'eu-west-1', voice_id: 'Joanna (neural)', speed: 0 },
        llm: { model: 'x' },
      }) as Partial<TAvatar>,
    );
    const values = speechValuesOf(a);
    expect(values.sttDetails).toMatchObject({ sttProvider: 3, sttAPIKey: '••••abcd', sttLanguage: 'multi', deepgramEndpoint: '250', sttContextPhrases: 'Acme\nWidget' });
    expect(values.ttsDetails).toMatchObject({ ttsProvider: 0, pollyAccessKey: '••••wxyz', pollySecretKey: '••••1234', ttsRegion: 'eu-west-1' });
    const payload = applySpeechValues({ customData: a.customData }, values, 1) as { customData: { agent_pipeline_config: Record<string, Record<string, unknown>> } };
    const p = payload.customData.agent_pipeline_config;
    expect(p.stt).toMatchObject({ provider: 3, api_key: '••••abcd', languages: 'multi', model: 'nova-3-general', endpointing: 250, context_phrases: 'Acme\nWidget' });
    expect(p.tts).toMatchObject({ provider: 0, api_key: '••••wxyz', secret_key: '••••1234', region: 'eu-west-1', voice_id: 'Joanna (neural)', speed: 0 });
    expect(p.llm).toEqual({ model: 'x' });
    // Other modes keep what they have.
    expect(applySpeechValues({ customData: a.customData }, values, 2)).toEqual({ customData: a.customData });
  });
});
