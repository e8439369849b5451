import { Fragment, useEffect, useMemo, useRef, useState, type ReactNode } from 'react';
import { Controller, useFormContext, useWatch, type FieldPath } from 'react-hook-form';
import Autocomplete from '@mui/material/Autocomplete';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import Chip from '@mui/material/Chip';
import Link from '@mui/material/Link';
import MenuItem from '@mui/material/MenuItem';
import Paper from '@mui/material/Paper';
import TextField from '@mui/material/TextField';
import Typography from '@mui/material/Typography';
import {
  isMasked,
  NlpEngine,
  providerRow,
  ProviderLookupLimits,
  ProviderLookupMessages,
  SetupMode,
  SpeechLimits,
  SpeechMessages,
  SttProvider,
  TtsProvider,
  ttsLookupFields,
  type TInfoPanelItem,
  type TProviderField,
  type TSpeechKind,
  type TTtsVoicesRequest,
} from '@persona/contract';
import { showToast } from '../../../../../lib/toast';
import { useDeepgramModels } from '../../../api/list-deepgram-models';
import { useSttLanguages } from '../../../api/list-stt-languages';
import { useTtsVoices } from '../../../api/list-tts-voices';
import { lookupErrorMessage } from '../../../lib/provider-lookups';
import {
  sttAfterProviderChange,
  sttChoices,
  sttChoiceValue,
  ttsAfterProviderChange,
  ttsChoices,
  ttsChoiceValue,
  ttsFormKey,
  type SpeechValues,
  type SttDetails,
  type TtsDetails,
} from '../../../lib/speech-form';
import { useOptionalEditorSession } from '../editor-session';
import { PlatformSttNote, PlatformVoiceNote } from './platform-notice';
import { speechHelp, type SpeechHelpKey } from './speech-help';
import { useRealtimeSetting } from './use-realtime-setting';

/** The form the Brain tab shares: its mode and engine, and the speech groups. */
type BrainSpeechForm = SpeechValues & { setupMode: number; nlpEngine: number };
type Path = FieldPath<BrainSpeechForm>;

export interface SpeechFormsProps {
  /** Tells the Brain tab's Info panel which field the user is on. */
  onHelp?: (item: TInfoPanelItem) => void;
}

/**
 * Speech to Text and Text to Speech (spec sections 2, 4, 5 "Speech forms"): shown below the engine
 * form for Simple and Composite modes; hidden for SpeechToSpeech and None (and for engines that
 * speak for themselves). Reads the mode and engine from the Brain tab's react-hook-form context.
 */
export function SpeechForms({ onHelp }: SpeechFormsProps) {
  const { control } = useFormContext<BrainSpeechForm>();
  const setupMode = Number(useWatch({ control, name: 'setupMode' }) ?? SetupMode.Simple);
  const engine = Number(useWatch({ control, name: 'nlpEngine' }) ?? NlpEngine.EchoTest);
  if (setupMode !== SetupMode.Simple && setupMode !== SetupMode.Composite) return null;
  if (engine === NlpEngine.Ten || engine === NlpEngine.TrulienceRealtime) return null;
  const help = (key: SpeechHelpKey) => () => onHelp?.(speechHelp[key]);
  return (
    <Box sx={{ display: 'grid', gap: 2 }}>
      <SttForm setupMode={setupMode} help={help} />
      <TtsForm setupMode={setupMode} help={help} />
    </Box>
  );
}

type HelpFn = (key: SpeechHelpKey) => () => void;

function Section({ title, description, children }: { title: string; description?: ReactNode; children: ReactNode }) {
  return (
    <Paper variant="outlined" component="section" aria-label={title} sx={{ p: { xs: 2, md: 2.5 } }}>
      <Typography variant="h6" component="h3" sx={{ mb: description ? 0.25 : 1.5 }}>
        {title}
      </Typography>
      {description ? (
        <Typography variant="body2" color="text.secondary" component="div" sx={{ mb: 2 }}>
          {description}
        </Typography>
      ) : null}
      <Box sx={{ display: 'grid', gap: 2, gridTemplateColumns: { xs: '1fr', md: 'repeat(2, minmax(0, 1fr))' }, alignItems: 'start' }}>{children}</Box>
    </Paper>
  );
}

function TextInput({
  name,
  label,
  help,
  isSecret,
  helperText,
  onBlur,
  multiline,
  select,
  children,
  placeholder,
  fullRow,
}: {
  name: Path;
  label: string;
  help: () => void;
  isSecret?: boolean;
  helperText?: ReactNode;
  onBlur?: () => void;
  multiline?: boolean;
  select?: boolean;
  children?: ReactNode;
  placeholder?: string;
  fullRow?: boolean;
}) {
  const { control } = useFormContext<BrainSpeechForm>();
  return (
    <Controller
      control={control}
      name={name}
      render={({ field, fieldState }) => (
        <TextField
          label={label}
          value={(field.value as string | number | undefined) ?? ''}
          onChange={field.onChange}
          onBlur={() => {
            field.onBlur();
            onBlur?.();
          }}
          onFocus={help}
          onClick={help}
          inputRef={field.ref}
          name={field.name}
          type={isSecret ? 'password' : 'text'}
          autoComplete="off"
          error={fieldState.invalid}
          helperText={fieldState.error?.message ?? helperText}
          size="small"
          fullWidth
          multiline={multiline}
          minRows={multiline ? 3 : undefined}
          select={select}
          placeholder={placeholder}
          sx={fullRow ? { gridColumn: '1 / -1' } : undefined}
          slotProps={{ htmlInput: { spellCheck: false, maxLength: multiline ? 20_000 : ProviderLookupLimits.keyMax }, inputLabel: select || placeholder ? { shrink: true } : undefined }}
        >
          {children}
        </TextField>
      )}
    />
  );
}

const maskedHint = (value: string) => (isMasked(value) ? 'Saved key kept: type a new one to replace it.' : undefined);

/** Speech to Text (spec: providers per mode, keys, region, model, context phrases, languages). */
function SttForm({ setupMode, help }: { setupMode: number; help: HelpFn }) {
  const { control, getValues, setValue, clearErrors } = useFormContext<BrainSpeechForm>();
  const session = useOptionalEditorSession();
  const avatarId = session?.agent?.id;
  const isRealtime = useRealtimeSetting();
  const stt = useWatch({ control, name: 'sttDetails' }) as SttDetails;
  const choices = sttChoices(setupMode, isRealtime);
  const provider = setupMode === SetupMode.Simple ? SttProvider.Default : stt.sttProvider;
  const isOwn = setupMode === SetupMode.Composite && provider !== SttProvider.Default && provider !== SttProvider.None;
  // Key and region as of the last blur: look-ups run with them.
  const [lookupKeys, setLookupKeys] = useState({ key: stt.sttAPIKey, region: stt.sttRegion });
  const refreshLookups = () => setLookupKeys({ key: getValues('sttDetails.sttAPIKey'), region: getValues('sttDetails.sttRegion') });
  const keyForLookup = lookupKeys.key && isMasked(lookupKeys.key) && avatarId === undefined ? '' : lookupKeys.key;

  const googleLanguages = useSttLanguages({ sttProvider: 'google' }, provider === SttProvider.Google || provider === SttProvider.Default);
  const azureLanguages = useSttLanguages({ sttProvider: 'azure', sttAPIKey: keyForLookup, sttRegion: lookupKeys.region, avatarId }, provider === SttProvider.Azure);
  const deepgramModels = useDeepgramModels({ sttAPIKey: keyForLookup, avatarId }, provider === SttProvider.Deepgram);

  const languageOptions = useMemo(() => {
    if (provider === SttProvider.Deepgram) {
      const model = deepgramModels.data?.find((m) => m.canonical_name === stt.sttModel) ?? deepgramModels.data?.[0];
      return ['multi', ...(model?.languages ?? ['en', 'en-US', 'es', 'fr', 'de'])];
    }
    if (provider === SttProvider.Azure) return (azureLanguages.data ?? []).map((l) => l.code);
    return (googleLanguages.data ?? []).map((l) => l.code);
  }, [provider, deepgramModels.data, azureLanguages.data, googleLanguages.data, stt.sttModel]);
  const languageNames = useMemo(() => {
    const names = new Map<string, string>([['multi', 'Multilingual']]);
    for (const l of [...(googleLanguages.data ?? []), ...(azureLanguages.data ?? [])]) names.set(l.code, l.name);
    return names;
  }, [googleLanguages.data, azureLanguages.data]);
  const googleLanguage = googleLanguages.data?.find((l) => l.code === stt.sttLanguage);
  /** What the look-ups offer for a row's field: Deepgram's models, Google's models and locations for the language. */
  const lookupOptions = (field: TProviderField): readonly string[] | undefined => {
    const fallback = field.options as readonly string[] | undefined;
    if (field.stored === 'model' && provider === SttProvider.Deepgram) return deepgramModels.data?.map((m) => m.canonical_name) ?? fallback;
    if (field.stored === 'model' && provider === SttProvider.Google) return [...new Set((googleLanguage?.models ?? fallback ?? []).concat(stt.sttModel ? [stt.sttModel] : []))];
    if (field.stored === 'region' && provider === SttProvider.Google) return googleLanguage?.locations ?? fallback;
    return undefined;
  };
  const lookupError =
    provider === SttProvider.Azure && azureLanguages.isError
      ? lookupErrorMessage(azureLanguages.error, ProviderLookupMessages.invalidSttKey)
      : provider === SttProvider.Deepgram && deepgramModels.isError
        ? lookupErrorMessage(deepgramModels.error, ProviderLookupMessages.invalidSttKey)
        : null;

  const changeProvider = (value: string) => {
    const choice = choices.find((c) => c.value === value);
    if (!choice) return;
    setValue('sttDetails', sttAfterProviderChange(getValues('sttDetails'), choice.provider, choice.defaultStt), { shouldDirty: true });
    clearErrors('sttDetails');
    setLookupKeys({ key: '', region: '' });
  };

  const setAdditional = (next: string[]) => {
    if (next.length > SpeechLimits.maxAdditionalLanguages) {
      void showToast(SpeechMessages.maxLanguages, 'error', { autoHideDurationMs: 4000 });
      return;
    }
    setValue('sttDetails.sttAdditionalLanguages', next, { shouldDirty: true, shouldValidate: true });
  };

  return (
    <Section
      title="Speech to Text"
      description={
        setupMode === SetupMode.Simple
          ? 'Simple mode listens with Persona Studio’s own speech recognition.'
          : 'How the avatar hears visitors: Persona Studio’s recognition or your own provider account.'
      }
    >
      <TextField
        select
        label="Speech to Text provider"
        value={sttChoiceValue({ sttProvider: provider, default_stt: stt.default_stt }, isRealtime)}
        onChange={(e) => changeProvider(e.target.value)}
        onFocus={help('sttProvider')}
        disabled={setupMode === SetupMode.Simple}
        size="small"
        fullWidth
        slotProps={{ htmlInput: { 'aria-label': 'Speech to Text provider' } }}
      >
        {choices.map((c) => (
          <MenuItem key={c.value} value={c.value}>
            {c.label}
          </MenuItem>
        ))}
      </TextField>
      {provider === SttProvider.None ? (
        <Typography variant="body2" color="text.secondary" sx={{ alignSelf: 'center' }}>
          No speech recognition: visitors type in the chat.
        </Typography>
      ) : null}
      {provider === SttProvider.Default ? <PlatformSttNote /> : null}

      {isOwn ? (
        <ProviderFields
          kind="stt"
          provider={provider}
          values={stt}
          help={help}
          onBlur={refreshLookups}
          keyHelperText={lookupError}
          optionsOf={lookupOptions}
          renderFile={() => <GoogleKeyFile help={help('sttAPIKey')} />}
        />
      ) : null}

      {provider !== SttProvider.None ? (
        <>
          <Controller
            control={control}
            name="sttDetails.sttLanguage"
            render={({ field, fieldState }) => (
              <Autocomplete
                freeSolo
                autoSelect
                options={languageOptions}
                value={field.value ?? ''}
                onChange={(_e, v) => field.onChange(v ?? '')}
                getOptionLabel={(o) => (languageNames.get(o) ? `${languageNames.get(o)} (${o})` : o)}
                loading={googleLanguages.isFetching || azureLanguages.isFetching || deepgramModels.isFetching}
                loadingText="Loading..."
                noOptionsText="No options available"
                renderInput={(params) => (
                  <TextField
                    {...params}
                    label="Main language"
                    name={field.name}
                    onFocus={help('sttLanguage')}
                    onBlur={field.onBlur}
                    error={fieldState.invalid}
                    helperText={fieldState.error?.message ?? (provider === SttProvider.Deepgram ? 'multi: Deepgram detects the language (10 languages).' : 'The first language is the primary one.')}
                    size="small"
                  />
                )}
              />
            )}
          />
          {!(provider === SttProvider.Deepgram && stt.sttLanguage === 'multi') ? (
            <Controller
              control={control}
              name="sttDetails.sttAdditionalLanguages"
              render={({ field, fieldState }) => (
                <Autocomplete
                  multiple
                  freeSolo
                  filterSelectedOptions
                  options={languageOptions.filter((o) => o !== 'multi' && o !== stt.sttLanguage)}
                  value={field.value ?? []}
                  onChange={(_e, v) => setAdditional(v.map(String).filter((s) => s.trim() !== ''))}
                  getOptionLabel={(o) => (languageNames.get(o) ? `${languageNames.get(o)} (${o})` : o)}
                  noOptionsText="No options available"
                  renderInput={(params) => (
                    <TextField
                      {...params}
                      label="Additional languages"
                      name={field.name}
                      onFocus={help('sttAdditionalLanguages')}
                      error={fieldState.invalid}
                      helperText={fieldState.error?.message ?? `At most ${SpeechLimits.maxAdditionalLanguages}.`}
                      size="small"
                    />
                  )}
                />
              )}
            />
          ) : (
            <Box />
          )}
        </>
      ) : null}
      {isOwn ? (
        <TextInput
          name="sttDetails.sttContextPhrases"
          label="Context phrases"
          multiline
          fullRow
          help={help('sttContextPhrases')}
          helperText="One per line: product names and words the recogniser should expect."
        />
      ) : null}
    </Section>
  );
}

function RegionInput({ name, options, help, onBlur }: { name: Path; options: readonly string[]; help: () => void; onBlur?: () => void }) {
  const { control } = useFormContext<BrainSpeechForm>();
  return (
    <Controller
      control={control}
      name={name}
      render={({ field, fieldState }) => (
        <Autocomplete
          freeSolo
          autoSelect
          options={[...options]}
          value={(field.value as string) ?? ''}
          onChange={(_e, v) => field.onChange(v ?? '')}
          onInputChange={(_e, v, reason) => {
            if (reason === 'input') field.onChange(v);
          }}
          renderInput={(params) => (
            <TextField
              {...params}
              label="Region"
              name={field.name}
              onFocus={help}
              onBlur={() => {
                field.onBlur();
                onBlur?.();
              }}
              error={fieldState.invalid}
              helperText={fieldState.error?.message}
              size="small"
            />
          )}
        />
      )}
    />
  );
}

/**
 * A provider's own fields, generated from its row (contract providers.ts) in row order: a key as a
 * password field (its saved mask explained), a region with the regions offered, a menu of the
 * row's options, a text with its hint and placeholder. The calling form supplies what only it
 * knows: a key file's sub-form, the options its look-ups found, a key's look-up error. Keys and
 * regions call `onBlur` (look-ups run with the values as of the last blur).
 */
function ProviderFields({
  kind,
  provider,
  values,
  help,
  onBlur,
  keyHelperText,
  optionsOf,
  renderFile,
}: {
  kind: TSpeechKind;
  provider: number;
  values: SttDetails | TtsDetails;
  help: HelpFn;
  onBlur: () => void;
  keyHelperText?: string | null;
  optionsOf?: (field: TProviderField) => readonly string[] | undefined;
  renderFile?: (field: TProviderField) => ReactNode;
}) {
  const valueOf = (field: TProviderField) => str((values as unknown as Record<string, unknown>)[field.form.slice(field.form.indexOf('.') + 1)]);
  return (
    <>
      {(providerRow(kind, provider)?.fields ?? []).map((field) => {
        const name = field.form as Path;
        switch (field.input ?? 'text') {
          case 'file':
            return <Fragment key={name}>{renderFile?.(field)}</Fragment>;
          case 'region':
            return <RegionInput key={name} name={name} options={optionsOf?.(field) ?? (field.options as readonly string[])} help={help(field.help)} onBlur={onBlur} />;
          case 'select':
            return (
              <TextInput key={name} name={name} label={field.label} select help={help(field.help)}>
                {(field.options as readonly { value: string; label: string }[]).map((o) => (
                  <MenuItem key={o.value} value={o.value}>
                    {o.label}
                  </MenuItem>
                ))}
              </TextInput>
            );
          case 'lookup': {
            const options = optionsOf?.(field) ?? [];
            if (options.length === 0) return null;
            const value = valueOf(field);
            return (
              <TextInput key={name} name={name} label={field.label} select help={help(field.help)}>
                {[...new Set([...(value ? [value] : []), ...options])].map((m) => (
                  <MenuItem key={m} value={m}>
                    {m}
                  </MenuItem>
                ))}
              </TextInput>
            );
          }
          default:
            return field.secret ? (
              <TextInput key={name} name={name} label={field.label} isSecret help={help(field.help)} onBlur={onBlur} helperText={keyHelperText ?? maskedHint(valueOf(field))} />
            ) : (
              <TextInput key={name} name={name} label={field.label} help={help(field.help)} placeholder={field.placeholder} helperText={field.hint} />
            );
        }
      })}
    </>
  );
}

/** Google: the service-account JSON key file, read in the browser and sent as text (stored sealed). */
function GoogleKeyFile({ help }: { help: () => void }) {
  const { control, setValue } = useFormContext<BrainSpeechForm>();
  const input = useRef<HTMLInputElement>(null);
  const fileName = useWatch({ control, name: 'sttDetails.sttAPIKeyFileName' });
  return (
    <Controller
      control={control}
      name="sttDetails.sttAPIKey"
      render={({ field, fieldState }) => (
        <Box onFocus={help}>
          <Box sx={{ display: 'flex', gap: 1, alignItems: 'center', flexWrap: 'wrap' }}>
            <Button variant="outlined" size="small" onClick={() => input.current?.click()}>
              {field.value ? 'Replace JSON key file' : 'Upload JSON key file'}
            </Button>
            <Typography variant="body2" data-testid="google-key-file">
              {field.value ? fileName || (isMasked(field.value) ? 'Saved key file' : 'key.json') : 'No file chosen'}
            </Typography>
          </Box>
          <input
            ref={input}
            type="file"
            accept=".json,application/json"
            hidden
            aria-label="Google JSON key file"
            onChange={async (e) => {
              const file = e.target.files?.[0];
              e.target.value = '';
              if (!file) return;
              if (file.size > SpeechLimits.googleKeyFileMaxBytes) {
                void showToast(SpeechMessages.googleKeyInvalid, 'error', { autoHideDurationMs: 4000 });
                return;
              }
              setValue('sttDetails.sttAPIKeyFileName', file.name.slice(0, 200), { shouldDirty: true });
              field.onChange(await readText(file));
            }}
          />
          <Typography variant="caption" color={fieldState.invalid ? 'error' : 'text.secondary'} component="p" sx={{ mt: 0.5 }} role={fieldState.invalid ? 'alert' : undefined}>
            {fieldState.error?.message ?? 'The service account’s key (.json) from Google Cloud.'}
          </Typography>
        </Box>
      )}
    />
  );
}

/**
 * What the voice look-up is asked, from the values as of the last blur: each field of the
 * provider's row with a look-up name (contract providers.ts); asked once each of them is given.
 */
function voicesRequest(tts: TtsDetails, setupMode: number, avatarId: number | undefined): { request: TTtsVoicesRequest; isReady: boolean } {
  const provider = setupMode === SetupMode.Simple ? TtsProvider.Default : tts.ttsProvider;
  const request: TTtsVoicesRequest = { ttsProvider: provider as TTtsVoicesRequest['ttsProvider'], setupMode: setupMode as TTtsVoicesRequest['setupMode'], avatarId };
  if (provider === TtsProvider.Default) {
    return { request: { ...request, default_tts: (['azure', 'polly', 'offline'].includes(tts.default_tts) ? tts.default_tts : 'azure') as 'azure' }, isReady: true };
  }
  const fields = ttsLookupFields(provider);
  if (fields.length === 0) return { request, isReady: false };
  const asked: Record<string, unknown> = { ...request };
  let isReady = true;
  for (const field of fields) {
    const value = str(tts[ttsFormKey(field.form)]);
    const { name, optional, minLengthExclusive } = field.lookup;
    asked[name] = optional ? value || undefined : value;
    if (optional) continue;
    isReady &&= minLengthExclusive === undefined ? value.trim() !== '' : isMasked(value) || value.trim().length > minLengthExclusive;
  }
  return { request: asked as TTtsVoicesRequest, isReady };
}

/** Text to Speech (spec: providers, keys, region, model, voice list, speech speed). */
function TtsForm({ setupMode, help }: { setupMode: number; help: HelpFn }) {
  const { control, getValues, setValue, clearErrors, getFieldState, resetField } = useFormContext<BrainSpeechForm>();
  const session = useOptionalEditorSession();
  const avatarId = session?.agent?.id;
  const tts = useWatch({ control, name: 'ttsDetails' }) as TtsDetails;
  const choices = ttsChoices(setupMode);
  const provider = setupMode === SetupMode.Simple ? TtsProvider.Default : tts.ttsProvider;
  const isOwn = setupMode === SetupMode.Composite && provider !== TtsProvider.Default && provider !== TtsProvider.None;
  // Voices reload on blur of a key or region field (and on a provider change).
  const [asked, setAsked] = useState(() => voicesRequest(getValues('ttsDetails'), setupMode, avatarId));
  const reload = () => setAsked(voicesRequest(getValues('ttsDetails'), setupMode, avatarId));
  useEffect(() => {
    setAsked(voicesRequest(getValues('ttsDetails'), setupMode, avatarId));
    // A provider or mode change asks again; keys only on blur.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [provider, tts.default_tts, tts.lang_code, setupMode]);
  const voices = useTtsVoices(asked.request, asked.isReady && provider !== TtsProvider.None);
  const voiceList = useMemo(() => (voices.isSuccess ? voices.data.ttsVoices : []), [voices.isSuccess, voices.data]);

  // The first voice is picked when none is chosen; a failed look-up clears the voice (spec section 8).
  // Opening the tab changes nothing by itself: while the user has not changed the TTS group (provider,
  // keys, region), a voice picked on load joins the form's baseline and a failed look-up keeps the
  // stored voice; after their change, both are changes of theirs.
  useEffect(() => {
    if (!voices.isSuccess || voiceList.length === 0 || getValues('ttsDetails.ttsVoice')) return;
    const first = voiceList[0]!.id;
    if (getFieldState('ttsDetails').isDirty) setValue('ttsDetails.ttsVoice', first, { shouldDirty: true, shouldValidate: true });
    else resetField('ttsDetails.ttsVoice', { defaultValue: first });
  }, [voices.isSuccess, voiceList, getValues, setValue, getFieldState, resetField]);
  useEffect(() => {
    if (voices.isError && getValues('ttsDetails.ttsVoice') && getFieldState('ttsDetails').isDirty) setValue('ttsDetails.ttsVoice', '', { shouldDirty: true });
  }, [voices.isError, getValues, setValue, getFieldState]);

  const changeProvider = (value: string) => {
    const choice = choices.find((c) => c.value === value);
    if (!choice) return;
    setValue('ttsDetails', ttsAfterProviderChange(getValues('ttsDetails'), choice.provider, choice.defaultTts), { shouldDirty: true });
    clearErrors('ttsDetails');
  };
  const selectedVoice = voiceList.find((v) => v.id === tts.ttsVoice);
  const chosen = choices.find((c) => c.value === ttsChoiceValue({ ttsProvider: provider, default_tts: tts.default_tts }));

  return (
    <Section
      title="Text to Speech"
      description={
        <>
          How the avatar speaks. Voices marked <OfflineChip /> work on any server, without a provider account; an avatar whose own
          provider keys are missing speaks with the offline voice.
        </>
      }
    >
      <TextField
        select
        label="Text to Speech provider"
        value={chosen?.value ?? ''}
        onChange={(e) => changeProvider(e.target.value)}
        onFocus={help('ttsProvider')}
        size="small"
        fullWidth
        slotProps={{ htmlInput: { 'aria-label': 'Text to Speech provider' } }}
      >
        {choices.map((c) => (
          <MenuItem key={c.value} value={c.value}>
            <Box sx={{ display: 'flex', gap: 1, alignItems: 'center' }}>
              {c.label}
              {c.isOffline ? <OfflineChip /> : null}
            </Box>
          </MenuItem>
        ))}
      </TextField>
      {provider === TtsProvider.None ? (
        <Typography variant="body2" color="text.secondary" sx={{ alignSelf: 'center' }}>
          No voice: the avatar answers in text only.
        </Typography>
      ) : null}

      {isOwn ? <ProviderFields kind="tts" provider={provider} values={tts} help={help} onBlur={reload} /> : null}

      {provider !== TtsProvider.None ? (
        <Controller
          control={control}
          name="ttsDetails.ttsVoice"
          render={({ field, fieldState }) => (
            <Box>
              <TextField
                select
                label="Voice"
                value={voiceList.some((v) => v.id === field.value) || !field.value ? (field.value ?? '') : field.value}
                onChange={field.onChange}
                onBlur={field.onBlur}
                onFocus={help('ttsVoice')}
                name={field.name}
                error={fieldState.invalid || voices.isError}
                helperText={fieldState.error?.message ?? (selectedVoice?.offline ? 'Works offline: speaks on any server.' : !asked.isReady && isOwn ? 'Enter your keys to load the voices.' : undefined)}
                size="small"
                fullWidth
                slotProps={{ select: { displayEmpty: true }, inputLabel: { shrink: true }, htmlInput: { 'aria-label': 'Voice' } }}
              >
                <MenuItem value="" disabled>
                  {voices.isFetching ? 'Loading...' : voiceList.length === 0 ? 'No options available' : 'Choose a voice'}
                </MenuItem>
                {field.value && !voiceList.some((v) => v.id === field.value) ? <MenuItem value={field.value}>{field.value}</MenuItem> : null}
                {voiceList.map((v) => (
                  <MenuItem key={v.id} value={v.id}>
                    <Box sx={{ display: 'flex', gap: 1, alignItems: 'center' }}>
                      {v.name}
                      {v.offline ? <OfflineChip /> : null}
                    </Box>
                  </MenuItem>
                ))}
              </TextField>
              {voices.isError ? (
                <Typography variant="caption" color="error" component="p" role="alert" sx={{ mt: 0.5 }}>
                  {lookupErrorMessage(voices.error, ProviderLookupMessages.voicesFailed)}{' '}
                  <Link component="button" type="button" variant="caption" onClick={() => void voices.refetch()}>
                    Retry
                  </Link>
                </Typography>
              ) : null}
            </Box>
          )}
        />
      ) : null}
      {provider === TtsProvider.Default && tts.default_tts !== 'offline' ? <PlatformVoiceNote defaultTts={tts.default_tts} voice={tts.ttsVoice} /> : null}
      {provider !== TtsProvider.None ? (
        <TextInput
          name="ttsDetails.ttsSpeechSpeed"
          label="Speech speed"
          help={help('ttsSpeechSpeed')}
          helperText="From -1 (slower) to 1 (faster); 0 is the voice's normal pace."
        />
      ) : null}
    </Section>
  );
}

const str = (v: unknown) => (typeof v === 'string' ? v : '');

function OfflineChip() {
  return <Chip size="small" label="Offline" color="success" variant="outlined" sx={{ height: 20, fontSize: 11, fontWeight: 700 }} />;
}

/** A small file's text (FileReader: also where Blob.text() is missing). */
function readText(file: File): Promise<string> {
  return new Promise((resolve, reject) => {
    const reader = new FileReader();
    reader.onload = () => resolve(typeof reader.result === 'string' ? reader.result : '');
    reader.onerror = () => reject(reader.error ?? new Error('read failed'));
    reader.readAsText(file);
  });
}
