import { useEffect, useRef, useState, type ChangeEvent } from 'react';
import { Controller, useController, useWatch } from 'react-hook-form';
import Alert from '@mui/material/Alert';
import Autocomplete from '@mui/material/Autocomplete';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import CircularProgress from '@mui/material/CircularProgress';
import FormControl from '@mui/material/FormControl';
import FormControlLabel from '@mui/material/FormControlLabel';
import FormHelperText from '@mui/material/FormHelperText';
import FormLabel from '@mui/material/FormLabel';
import MenuItem from '@mui/material/MenuItem';
import Radio from '@mui/material/Radio';
import RadioGroup from '@mui/material/RadioGroup';
import TextField from '@mui/material/TextField';
import Typography from '@mui/material/Typography';
import UploadFileOutlinedIcon from '@mui/icons-material/UploadFileOutlined';
import {
  EngineLimits,
  EngineMessages,
  isMasked,
  isServiceAccountJson,
  Languages,
  LlmBaseUrls,
  ProviderLookupLimits,
  ProviderLookupMessages,
  RealtimeBaseUrls,
  SetupMode,
  SimpleModeLlmModels,
  type TElevenLabsAgentState,
} from '@persona/contract';
import { useElevenLabsAgentCheck } from '../../../api/check-elevenlabs-agent';
import { useLlmAssistants } from '../../../api/list-llm-assistants';
import { useLlmModels } from '../../../api/list-llm-models';
import { CUSTOM_URL, GROQ, knownBaseUrl, realtimeModelsOf, realtimeVoicesOf, showsInteractionType, withBaseUrl } from '../../../lib/brain-form';
import { agentCheckMessage, showsAgentKey } from '../../../lib/brain-agent-check';
import { lookupErrorMessage } from '../../../lib/provider-lookups';
import { useEditorSession } from '../editor-session';
import { BrainText, HelpArea } from './fields';
import { PlatformNotice } from './platform-notice';

const grid = { display: 'grid', gap: 2, gridTemplateColumns: { xs: '1fr', md: 'repeat(2, minmax(0, 1fr))' } } as const;
const LANGUAGE_OPTIONS = Languages.filter((l) => l.code !== 'aa').map((l) => ({ value: l.code, label: `${l.name} (${l.code})` }));

/** Avatar memory: a required yes/no (LLM and REST). */
function MemoryField({ name }: { name: 'llmDetails.summaryEnabled' | 'restEndpoint.summary_enabled' }) {
  const { brainForm } = useEditorSession();
  return (
    <HelpArea help="memory">
      <Controller
        control={brainForm.control}
        name={name}
        render={({ field, fieldState }) => (
          <FormControl error={fieldState.invalid}>
            <FormLabel id={`${name}-label`} sx={{ fontSize: '0.8rem' }}>
              Avatar Memory
            </FormLabel>
            <RadioGroup row aria-labelledby={`${name}-label`} value={typeof field.value === 'boolean' ? String(field.value) : ''} onChange={(e) => field.onChange(e.target.value === 'true')}>
              <FormControlLabel value="true" control={<Radio size="small" />} label="Enabled" />
              <FormControlLabel value="false" control={<Radio size="small" />} label="Disabled" />
            </RadioGroup>
            {fieldState.error ? <FormHelperText>{fieldState.error.message}</FormHelperText> : null}
          </FormControl>
        )}
      />
    </HelpArea>
  );
}

/** Large language model: base URL (catalogue or custom), key, model from the provider, prompt, interaction type, memory, max tokens. */
export function LlmForm({ isRealtime }: { isRealtime: boolean }) {
  const { brainForm, agent } = useEditorSession();
  const { control, getValues, setValue, getFieldState, resetField } = brainForm;
  const mode = useWatch({ control, name: 'setupMode' });
  const url = useWatch({ control, name: 'llmDetails.url' });
  const interactionType = useWatch({ control, name: 'llmDetails.interactionType' });
  const isSimple = mode === SetupMode.Simple;
  // The look-ups run with what was committed (a chosen URL, a key on blur), not on every keystroke.
  const [committed, setCommitted] = useState(() => ({ url: getValues('llmDetails.url'), key: getValues('llmDetails.llmAPIKey') }));
  const models = useLlmModels({ avatarId: agent?.id, url: committed.url, llmAPIKey: committed.key }, !isSimple);
  const showsType = showsInteractionType({ setupMode: mode, llmDetails: getValues('llmDetails') }, isRealtime);
  const assistants = useLlmAssistants({ avatarId: agent?.id, url: committed.url, llmAPIKey: committed.key }, showsType && interactionType === 'assistant');
  const known = knownBaseUrl(url);
  const selectValue = isSimple ? GROQ.url : known ? known.url : CUSTOM_URL;

  // Simple mode: Groq, and the first model when none of Simple's is chosen. A mode or engine change
  // of the user's forces them already (withSetupMode, withEngine); what is left here is an avatar
  // saved before Simple mode fixed Groq. Opening the tab changes nothing by itself (spec section 4
  // forces Groq on a change, and Simple mode runs the operator's model whatever is stored): the
  // forced values join the form's baseline, and are written when the user saves a change to the
  // brain. After the user's own change to the LLM group (a model typed in), forcing is a change too.
  useEffect(() => {
    if (!isSimple) return;
    const l = getValues('llmDetails');
    if (l.url === GROQ.url && (SimpleModeLlmModels as readonly string[]).includes(l.llmModel)) return;
    const forced = withBaseUrl(getValues(), GROQ.url).llmDetails;
    if (getFieldState('llmDetails').isDirty) setValue('llmDetails', forced, { shouldDirty: true });
    else resetField('llmDetails', { defaultValue: forced });
  }, [isSimple, getValues, setValue, getFieldState, resetField]);

  const chooseBaseUrl = (value: string) => {
    const next = withBaseUrl(getValues(), value === CUSTOM_URL ? '' : value).llmDetails;
    setValue('llmDetails', next, { shouldDirty: true });
    setCommitted({ url: next.url, key: '' });
  };
  const modelOptions: readonly string[] = isSimple ? SimpleModeLlmModels : (models.data ?? []);
  const modelError = !isSimple && models.isError ? lookupErrorMessage(models.error, ProviderLookupMessages.invalidUrlOrKey) : undefined;

  return (
    <Box sx={grid}>
      {isSimple ? <PlatformNotice service="llm" /> : null}
      <HelpArea help="llmBaseUrl">
        <TextField
          select
          label="Base URL"
          value={selectValue}
          onChange={(e) => chooseBaseUrl(e.target.value)}
          disabled={isSimple}
          helperText={isSimple ? 'Simple mode uses Groq.' : undefined}
          size="small"
          fullWidth
        >
          {LlmBaseUrls.map((b) => (
            <MenuItem key={b.url} value={b.url}>
              {b.name} — {b.url}
            </MenuItem>
          ))}
          <MenuItem value={CUSTOM_URL}>Custom URL</MenuItem>
        </TextField>
      </HelpArea>
      {selectValue === CUSTOM_URL ? (
        <BrainText
          name="llmDetails.url"
          label="Custom Base URL"
          help="llmCustomUrl"
          placeholder="https://llm.example.com/v1"
          onChange={() => setValue('llmDetails.llmProvider', 'custom')}
          onBlur={(v) => setCommitted((c) => ({ ...c, url: v.trim() }))}
        />
      ) : null}
      {isSimple ? null : (
        <BrainText name="llmDetails.llmAPIKey" label="API Key" help="llmApiKey" secret onBlur={(v) => setCommitted((c) => ({ ...c, url: getValues('llmDetails.url').trim(), key: v.trim() }))} />
      )}
      <HelpArea help="llmModel">
        <Controller
          control={control}
          name="llmDetails.llmModel"
          render={({ field, fieldState }) => (
            <Autocomplete
              freeSolo
              options={modelOptions as string[]}
              value={field.value || null}
              inputValue={field.value ?? ''}
              onInputChange={(_e, v) => field.onChange(v)}
              onChange={(_e, v) => field.onChange(v ?? '')}
              loading={!isSimple && models.isFetching}
              size="small"
              renderInput={(params) => (
                <TextField
                  {...params}
                  label="Model"
                  name={field.name}
                  inputRef={field.ref}
                  onBlur={field.onBlur}
                  error={fieldState.invalid || Boolean(modelError)}
                  helperText={
                    fieldState.error?.message ??
                    modelError ??
                    (isSimple ? 'The product’s models.' : !committed.key ? 'Enter the API key to load the provider’s models.' : models.isFetching ? 'Loading...' : models.data?.length === 0 ? 'No options available' : undefined)
                  }
                  slotProps={{
                    ...params.slotProps,
                    input: {
                      ...params.slotProps.input,
                      endAdornment: (
                        <>
                          {!isSimple && models.isFetching ? <CircularProgress color="inherit" size={16} /> : null}
                          {params.slotProps.input.endAdornment}
                        </>
                      ),
                    },
                  }}
                />
              )}
            />
          )}
        />
      </HelpArea>
      {showsType ? (
        <HelpArea help="interactionType">
          <Controller
            control={control}
            name="llmDetails.interactionType"
            render={({ field }) => (
              <FormControl>
                <FormLabel id="interaction-type-label" sx={{ fontSize: '0.8rem' }}>
                  Interaction Type
                </FormLabel>
                <RadioGroup row aria-labelledby="interaction-type-label" value={field.value} onChange={(e) => field.onChange(e.target.value)}>
                  <FormControlLabel value="prompt" control={<Radio size="small" />} label="Prompt" />
                  <FormControlLabel value="assistant" control={<Radio size="small" />} label="Assistant" />
                </RadioGroup>
              </FormControl>
            )}
          />
        </HelpArea>
      ) : null}
      {showsType && interactionType === 'assistant' ? (
        <BrainText
          name="llmDetails.llmAssistantId"
          label="Assistant"
          help="llmAssistant"
          options={[
            { value: '', label: assistants.isFetching ? 'Loading...' : (assistants.data?.length ?? 0) === 0 ? 'No options available' : 'Choose an assistant' },
            ...(assistants.data ?? []).map((a) => ({ value: a.id, label: `${a.name || 'Unnamed'} (${a.id})` })),
            ...(getValues('llmDetails.llmAssistantId') && !(assistants.data ?? []).some((a) => a.id === getValues('llmDetails.llmAssistantId'))
              ? [{ value: getValues('llmDetails.llmAssistantId'), label: getValues('llmDetails.llmAssistantId') }]
              : []),
          ]}
          helperText={assistants.isError ? lookupErrorMessage(assistants.error, ProviderLookupMessages.assistantsFailed) : undefined}
        />
      ) : null}
      <BrainText
        name="llmDetails.llmPrompt"
        label="Prompt"
        help="llmPrompt"
        multiline
        wide
        maxLength={EngineLimits.promptMax}
        placeholder="You are the friendly receptionist of … Keep answers short."
        helperText="Empty: the avatar is told to give friendly replies of 15–35 words."
      />
      <MemoryField name="llmDetails.summaryEnabled" />
      <BrainText name="llmDetails.llmMaxTokens" label="Max Tokens" help="maxTokens" helperText="Empty: the provider’s default." maxLength={8} />
    </Box>
  );
}

export function RestEndpointForm() {
  return (
    <Box sx={grid}>
      <BrainText name="restEndpoint.base_url" label="REST Endpoint URL" help="restUrl" placeholder="https://api.example.com/avatar" />
      <BrainText name="restEndpoint.api_key" label="REST API Key" help="restKey" secret />
      <BrainText name="restEndpoint.custom_text" label="Custom Text" help="restCustomText" />
      <BrainText name="restEndpoint.agent_language" label="Language" help="agentLanguage" options={LANGUAGE_OPTIONS} />
      <MemoryField name="restEndpoint.summary_enabled" />
    </Box>
  );
}

function readText(file: Blob): Promise<string> {
  return new Promise((resolve, reject) => {
    const reader = new FileReader();
    reader.onload = () => resolve(String(reader.result ?? ''));
    reader.onerror = () => reject(reader.error ?? new Error('The file could not be read.'));
    reader.readAsText(file);
  });
}

/** Dialogflow ES (CX adds the agent and region): the service-account key file, project, language. */
export function DialogflowForm({ isCx }: { isCx: boolean }) {
  const { brainForm } = useEditorSession();
  const { control, getValues, setValue, setError, clearErrors } = brainForm;
  const key = useWatch({ control, name: 'dialogFlow.api_key' });
  const fileName = useWatch({ control, name: 'dialogFlow.api_key_file_name' });
  const input = useRef<HTMLInputElement>(null);
  const keyError = brainForm.formState.errors.dialogFlow?.api_key?.message;

  const onFile = async (e: ChangeEvent<HTMLInputElement>) => {
    const file = e.target.files?.[0];
    e.target.value = '';
    if (!file) return;
    if (file.size > EngineLimits.jsonKeyMaxBytes) return setError('dialogFlow.api_key', { type: 'custom', message: `File size exceeds ${EngineLimits.jsonKeyMaxBytes / 1024}KB for the JSON key.` });
    const text = await readText(file);
    if (!isServiceAccountJson(text)) return setError('dialogFlow.api_key', { type: 'custom', message: EngineMessages.dialogflowKeyInvalid });
    clearErrors('dialogFlow.api_key');
    setValue('dialogFlow.api_key', text, { shouldDirty: true });
    setValue('dialogFlow.api_key_file_name', file.name.slice(0, 200), { shouldDirty: true });
    const project = (JSON.parse(text) as { project_id?: unknown }).project_id;
    if (!getValues('dialogFlow.project_id') && typeof project === 'string') setValue('dialogFlow.project_id', project.slice(0, 200), { shouldDirty: true, shouldValidate: true });
  };

  return (
    <Box sx={grid}>
      <HelpArea help="dfJsonKey" wide>
        <Box sx={{ display: 'flex', alignItems: 'center', gap: 1.5, flexWrap: 'wrap' }}>
          <Button variant="outlined" startIcon={<UploadFileOutlinedIcon />} onClick={() => input.current?.click()}>
            Upload JSON Key File
          </Button>
          <input ref={input} type="file" accept=".json,application/json" hidden aria-label="JSON Key File" onChange={(e) => void onFile(e)} />
          <Typography variant="body2" color="text.secondary" data-testid="dialogflow-key-state">
            {!key ? 'No key file yet.' : isMasked(key) ? `A key is stored (${key})${fileName ? `: ${fileName}` : ''}.` : `Ready to save: ${fileName || 'key file'}.`}
          </Typography>
        </Box>
        {keyError ? (
          <FormHelperText error sx={{ mx: 1.75 }}>
            {keyError}
          </FormHelperText>
        ) : null}
      </HelpArea>
      <BrainText name="dialogFlow.project_id" label="Project Id" help="dfProject" />
      {isCx ? <BrainText name="dialogFlow.agent_id" label="Agent Id" help="dfAgent" /> : null}
      {isCx ? <BrainText name="dialogFlow.region_id" label="Region Id" help="dfRegion" placeholder="global" /> : null}
      <BrainText name="dialogFlow.agent_language" label="Language" help="agentLanguage" options={LANGUAGE_OPTIONS} />
    </Box>
  );
}

/** Realtime (speech to speech): URL, key, model and voice of the URL's family, instructions, greeting. */
export function RealtimeForm() {
  const { brainForm } = useEditorSession();
  const { control, getValues, setValue } = brainForm;
  const url = useWatch({ control, name: 'trulienceRealtime.url' });
  // No key of its own: the product's realtime (the operator's key).
  const ownKey = useWatch({ control, name: 'trulienceRealtime.api_key' });
  const urls: { value: string; label: string }[] = RealtimeBaseUrls.map((b) => ({ value: b.url, label: `${b.name} — ${b.url}` }));
  if (url && !urls.some((u) => u.value === url)) urls.push({ value: url, label: url });
  const chooseUrl = (next: string) => {
    const models = realtimeModelsOf(next);
    const voices = realtimeVoicesOf(next);
    if (!models.includes(getValues('trulienceRealtime.model'))) setValue('trulienceRealtime.model', models[0] ?? '', { shouldDirty: true });
    if (!voices.includes(getValues('trulienceRealtime.voice_id'))) setValue('trulienceRealtime.voice_id', voices[0] ?? '', { shouldDirty: true });
  };
  return (
    <Box sx={grid}>
      <BrainText name="trulienceRealtime.url" label="Realtime URL" help="rtUrl" options={urls} onChange={chooseUrl} />
      <BrainText name="trulienceRealtime.api_key" label="API Key" help="rtKey" secret />
      <BrainText name="trulienceRealtime.model" label="Model" help="rtModel" options={[{ value: '', label: 'Select a model' }, ...realtimeModelsOf(url).map((m) => ({ value: m, label: m }))]} />
      <BrainText name="trulienceRealtime.voice_id" label="Voice" help="rtVoice" options={[{ value: '', label: 'Select a voice' }, ...realtimeVoicesOf(url).map((v) => ({ value: v, label: v }))]} />
      <BrainText name="trulienceRealtime.instructions" label="Instructions" help="rtInstructions" multiline wide maxLength={EngineLimits.promptMax} />
      <BrainText name="trulienceRealtime.greeting" label="Greeting" help="rtGreeting" wide />
      {ownKey?.trim() ? null : <PlatformNotice service="realtime" />}
    </Box>
  );
}

const STATE_TEXT: Record<TElevenLabsAgentState, string> = {
  idle: `Enter the agent ID (at least ${ProviderLookupLimits.agentIdMin} characters) to check it.`,
  checking: 'Checking the agent with ElevenLabs…',
  public: 'Public agent: no API key needed.',
  private: 'Private agent: your API key is accepted.',
  invalid_api_key: '',
  invalid_agent_id: '',
};

/** Under Connection Type when WebRTC is chosen: what the live avatar actually runs (ADR 071). */
const ELEVENLABS_WEBRTC_NOTE = 'The live avatar connects to ElevenLabs by WebSocket here: WebRTC needs ElevenLabs\u2019 own media servers, so WebSocket is what runs.';

/**
 * ElevenLabs Conversational AI: the agent ID is checked 500 ms after typing stops (from 12
 * characters); the API key is asked for only when the agent is private or the key was refused.
 */
export function ElevenLabsForm() {
  const { brainForm, agent } = useEditorSession();
  const { control, getValues, setValue, trigger, formState, getFieldState, resetField } = brainForm;
  const agentId = useWatch({ control, name: 'elevenLabsConversationAI.agent_id' });
  const connectionType = useWatch({ control, name: 'elevenLabsConversationAI.connection_type' });
  // The check's state is the form's (its rules and the saved is_public read it), registered so that
  // it can be the baseline (below); the status text is only shown.
  const savedStatus = useController({ control, name: 'elevenLabsConversationAI.status' }).field.value;
  const trimmed = agentId.trim();
  const [debounced, setDebounced] = useState(trimmed);
  const [checkKey, setCheckKey] = useState(() => getValues('elevenLabsConversationAI.api_key').trim());
  useEffect(() => {
    const timer = setTimeout(() => setDebounced(trimmed), 500);
    return () => clearTimeout(timer);
  }, [trimmed]);
  const isLongEnough = debounced.length >= ProviderLookupLimits.agentIdMin;
  const check = useElevenLabsAgentCheck({ avatarId: agent?.id, agent_id: debounced, ...(checkKey ? { api_key: checkKey } : {}) }, isLongEnough);

  let status: TElevenLabsAgentState;
  let message = '';
  if (trimmed.length < ProviderLookupLimits.agentIdMin) status = 'idle';
  else if (trimmed !== debounced || check.isFetching) status = 'checking';
  else if (check.isError) {
    status = 'invalid_agent_id';
    message = lookupErrorMessage(check.error, ProviderLookupMessages.agentCheckFailed);
  } else if (check.data) {
    status = check.data.state;
    message = agentCheckMessage(check.data.state, checkKey, check.data.message);
  } else status = savedStatus === 'checking' ? 'idle' : savedStatus;

  const hasErrors = Boolean(formState.errors.elevenLabsConversationAI);
  // The check's verdict follows the agent ID and key: those are the user's changes, the verdict never
  // is one. It is always the form's baseline, so opening the tab on a stored agent (checked again on
  // load) leaves no unsaved change, and undoing a change leaves none either.
  useEffect(() => {
    if (getValues('elevenLabsConversationAI.status') !== status) resetField('elevenLabsConversationAI.status', { defaultValue: status });
    // Public: the key is cleared (the user's change only when the key was theirs).
    if (status === 'public' && getValues('elevenLabsConversationAI.api_key')) {
      if (getFieldState('elevenLabsConversationAI.api_key').isDirty) setValue('elevenLabsConversationAI.api_key', '', { shouldDirty: true });
      else resetField('elevenLabsConversationAI.api_key', { defaultValue: '' });
    }
    if (status === 'public' || status === 'private' || hasErrors) void trigger('elevenLabsConversationAI');
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [status, message]);

  const severity = status === 'public' || status === 'private' ? 'success' : status === 'idle' || status === 'checking' ? 'info' : 'error';
  return (
    <Box sx={grid}>
      <Box>
        <BrainText name="elevenLabsConversationAI.agent_id" label="Agent ID" help="elAgentId" maxLength={ProviderLookupLimits.agentIdMax} />
        <Alert
          severity={severity}
          icon={status === 'checking' ? <CircularProgress size={18} /> : undefined}
          sx={{ mt: 1, py: 0 }}
          data-testid="elevenlabs-status"
          data-state={status}
          role="status"
        >
          {message || STATE_TEXT[status]}
        </Alert>
      </Box>
      <BrainText
        name="elevenLabsConversationAI.connection_type"
        label="Connection Type"
        help="elConnection"
        helperText={connectionType === 'webrtc' ? ELEVENLABS_WEBRTC_NOTE : undefined}
        options={[
          { value: 'webrtc', label: 'WebRTC' },
          { value: 'websocket', label: 'WebSocket' },
        ]}
      />
      {showsAgentKey(status) ? (
        <BrainText name="elevenLabsConversationAI.api_key" label="API Key" help="elApiKey" secret onBlur={(v) => setCheckKey(v.trim())} />
      ) : null}
    </Box>
  );
}
