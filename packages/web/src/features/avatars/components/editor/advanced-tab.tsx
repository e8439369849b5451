import { useRef, type ReactNode } from 'react';
import { Controller, useWatch, type FieldPath } from 'react-hook-form';
import { Link as RouterLink } from 'react-router';
import Box from '@mui/material/Box';
import Link from '@mui/material/Link';
import Checkbox from '@mui/material/Checkbox';
import Chip from '@mui/material/Chip';
import FormControlLabel from '@mui/material/FormControlLabel';
import InputAdornment from '@mui/material/InputAdornment';
import MenuItem from '@mui/material/MenuItem';
import Paper from '@mui/material/Paper';
import Switch from '@mui/material/Switch';
import TextField from '@mui/material/TextField';
import Typography from '@mui/material/Typography';
import { AvatarLimits, FillerOptions, SetupMode } from '@persona/contract';
import { TextLink } from '../../../../components/text-link';
import { paths } from '../../../../lib/paths';
import type { TCreatorAccount } from '../../api/get-account-info';
import { useOAuthConfigs } from '../../api/list-oauth-configs';
import type { AdvancedValues } from '../../lib/advanced-form';
import { useEditorSession } from './editor-session';

function Section({ title, description, children, badge }: { title: string; description?: ReactNode; children: ReactNode; badge?: ReactNode }) {
  return (
    <Paper variant="outlined" component="section" aria-label={title} sx={{ p: { xs: 2, md: 2.5 } }}>
      <Box sx={{ display: 'flex', alignItems: 'center', gap: 1, mb: description ? 0.25 : 1.5 }}>
        <Typography variant="h6" component="h3">
          {title}
        </Typography>
        {badge}
      </Box>
      {description ? (
        <Typography variant="body2" color="text.secondary" sx={{ mb: 2 }}>
          {description}
        </Typography>
      ) : null}
      <Box sx={{ display: 'grid', gap: 2, gridTemplateColumns: { xs: '1fr', md: 'repeat(2, minmax(0, 1fr))' } }}>{children}</Box>
    </Paper>
  );
}

const adminBadge = <Chip size="small" label="Admin proxy" color="warning" variant="outlined" sx={{ fontWeight: 700 }} />;

function NumberField({ name, label, unit, disabled, helperText }: { name: FieldPath<AdvancedValues>; label: string; unit?: string; disabled?: boolean; helperText?: string }) {
  const { advancedForm } = useEditorSession();
  return (
    <Controller
      control={advancedForm.control}
      name={name}
      render={({ field, fieldState }) => (
        <TextField
          label={label}
          value={(field.value as string | number | undefined) ?? ''}
          onChange={field.onChange}
          onBlur={field.onBlur}
          inputRef={field.ref}
          name={field.name}
          disabled={disabled}
          error={fieldState.invalid}
          helperText={fieldState.error?.message ?? helperText}
          fullWidth
          size="small"
          slotProps={{
            htmlInput: { inputMode: 'decimal' },
            input: unit ? { endAdornment: <InputAdornment position="end">{unit}</InputAdornment> } : undefined,
          }}
        />
      )}
    />
  );
}

function TextInputField({ name, label, helperText, type = 'text', autoComplete }: { name: 'billingAuthURL' | 'billingAuthHeader'; label: string; helperText?: string; type?: string; autoComplete?: string }) {
  const { advancedForm } = useEditorSession();
  return (
    <Controller
      control={advancedForm.control}
      name={name}
      render={({ field, fieldState }) => (
        <TextField
          label={label}
          type={type}
          value={field.value}
          onChange={field.onChange}
          onBlur={field.onBlur}
          inputRef={field.ref}
          name={field.name}
          error={fieldState.invalid}
          helperText={fieldState.error?.message ?? helperText}
          size="small"
          fullWidth
          autoComplete={autoComplete}
          slotProps={{ htmlInput: { maxLength: 2000, spellCheck: false } }}
        />
      )}
    />
  );
}

/** Spec "OAuth on avatar": the switch, the account's OAuth configs, and a way to make one. */
function OAuthFields() {
  const { advancedForm } = useEditorSession();
  const isEnabled = useWatch({ control: advancedForm.control, name: 'oauthEnabled' });
  const configs = useOAuthConfigs(isEnabled);
  const apps = configs.data ?? [];
  return (
    <>
      <Controller
        control={advancedForm.control}
        name="oauthEnabled"
        render={({ field }) => (
          <Box>
            <FormControlLabel
              control={
                <Switch
                  checked={field.value}
                  onChange={(e) => {
                    field.onChange(e.target.checked);
                    if (!e.target.checked) advancedForm.clearErrors('partnerOauthAppId');
                  }}
                  name={field.name}
                />
              }
              label="OAuth sign-in"
            />
            <Typography variant="caption" color="text.secondary" component="p" sx={{ ml: 6, mt: -0.5 }}>
              Visitors sign in with your OAuth provider before the avatar starts.
            </Typography>
          </Box>
        )}
      />
      {isEnabled ? (
        <Controller
          control={advancedForm.control}
          name="partnerOauthAppId"
          render={({ field, fieldState }) => (
            <Box>
              <TextField
                select
                label="OAuth Config"
                value={field.value}
                onChange={field.onChange}
                onBlur={field.onBlur}
                inputRef={field.ref}
                name={field.name}
                error={fieldState.invalid || configs.isError}
                helperText={
                  fieldState.error?.message ??
                  (configs.isError ? 'Failed to load your OAuth configs.' : apps.length === 0 && configs.isSuccess ? 'You have no OAuth configs yet.' : undefined)
                }
                size="small"
                fullWidth
                slotProps={{ select: { displayEmpty: true }, inputLabel: { shrink: true } }}
              >
                <MenuItem value="" disabled>
                  {configs.isPending ? 'Loading…' : 'Choose a config'}
                </MenuItem>
                {/* A stored id the list does not hold (deleted since) stays visible, so the error is understood. */}
                {field.value && !apps.some((a) => String(a.appId) === field.value) ? (
                  <MenuItem value={field.value}>
                    Config #{field.value}
                    {configs.isSuccess ? ' (not found)' : ''}
                  </MenuItem>
                ) : null}
                {apps.map((app) => (
                  <MenuItem key={app.appId} value={String(app.appId)}>
                    {app.appName} ({app.partner})
                  </MenuItem>
                ))}
              </TextField>
              <Box sx={{ mt: 0.5 }}>
                <TextLink to={paths.oauthConfigs}>Manage OAuth configs</TextLink>
              </Box>
            </Box>
          )}
        />
      ) : (
        <Box sx={{ alignSelf: 'center' }}>
          <TextLink to={paths.oauthConfigs}>Manage OAuth configs</TextLink>
        </Box>
      )}
    </>
  );
}

/** A limit in seconds with its Unlimited checkbox: ticking sets -1, unticking restores the previous value (600 by default). */
function LimitField({ name, label }: { name: 'dailyLimitPerSession' | 'dailyLimitPerIP' | 'demoLimit'; label: string }) {
  const { advancedForm } = useEditorSession();
  const value = useWatch({ control: advancedForm.control, name });
  const isUnlimited = Number(value) === AvatarLimits.unlimited && String(value).trim() !== '';
  const previous = useRef<string | number>(isUnlimited ? AvatarLimits.dailyLimitRestore : value);
  const toggle = (checked: boolean) => {
    if (checked) {
      previous.current = value;
      advancedForm.setValue(name, AvatarLimits.unlimited, { shouldDirty: true, shouldValidate: true });
    } else {
      const restore = previous.current;
      const usable = restore !== '' && Number(restore) !== AvatarLimits.unlimited ? restore : AvatarLimits.dailyLimitRestore;
      advancedForm.setValue(name, usable, { shouldDirty: true, shouldValidate: true });
    }
  };
  return (
    <Box>
      <Controller
        control={advancedForm.control}
        name={name}
        render={({ field, fieldState }) => (
          <TextField
            label={label}
            value={isUnlimited ? 'Unlimited' : ((field.value as string | number | undefined) ?? '')}
            onChange={field.onChange}
            onBlur={field.onBlur}
            inputRef={field.ref}
            name={field.name}
            disabled={isUnlimited}
            error={fieldState.invalid}
            helperText={fieldState.error?.message}
            fullWidth
            size="small"
            slotProps={{
              htmlInput: { inputMode: 'numeric' },
              input: isUnlimited ? undefined : { endAdornment: <InputAdornment position="end">s</InputAdornment> },
            }}
          />
        )}
      />
      <FormControlLabel
        control={<Checkbox size="small" checked={isUnlimited} onChange={(e) => toggle(e.target.checked)} />}
        label={<Typography variant="body2">Unlimited</Typography>}
        slotProps={{ typography: { component: 'span' } }}
        aria-label={`${label} Unlimited`}
        sx={{ mt: 0.25 }}
      />
    </Box>
  );
}

function SwitchField({ name, label, helperText }: { name: 'realtime' | 'sendChatHistory' | 'handleSttResponse' | 'transcriptionStreaming' | 'allowInterruptions' | 'fillersEnabled'; label: string; helperText?: string }) {
  const { advancedForm } = useEditorSession();
  return (
    <Controller
      control={advancedForm.control}
      name={name}
      render={({ field }) => (
        <Box>
          <FormControlLabel control={<Switch checked={Boolean(field.value)} onChange={(e) => field.onChange(e.target.checked)} name={field.name} />} label={label} />
          {helperText ? (
            <Typography variant="caption" color="text.secondary" component="p" sx={{ ml: 6, mt: -0.5 }}>
              {helperText}
            </Typography>
          ) : null}
        </Box>
      )}
    />
  );
}

/** The filler lines, one per line (said in turn). */
function FillersField() {
  const { advancedForm } = useEditorSession();
  const enabled = useWatch({ control: advancedForm.control, name: 'fillersEnabled' });
  return (
    <Controller
      control={advancedForm.control}
      name="fillers"
      render={({ field, fieldState }) => (
        <TextField
          label="Fillers"
          multiline
          minRows={3}
          value={field.value}
          onChange={field.onChange}
          onBlur={field.onBlur}
          inputRef={field.ref}
          name={field.name}
          disabled={!enabled}
          error={fieldState.invalid}
          helperText={fieldState.error?.message ?? `One per line, said in turn; at most ${FillerOptions.maxPhrases}, each up to ${FillerOptions.maxChars} characters.`}
        />
      )}
    />
  );
}

export function AdvancedTab({ account }: { account: TCreatorAccount | undefined }) {
  const { advancedForm, brainForm, isAdminProxy } = useEditorSession();
  const realtime = useWatch({ control: advancedForm.control, name: 'realtime' });
  // The mode chosen on the Brain tab, saved or not: its groups are the ones saved with it.
  const isSpeechToSpeech = useWatch({ control: brainForm.control, name: 'setupMode' }) === SetupMode.SpeechToSpeech;
  const encKeys = account?.encKeys ?? [];

  return (
    <Box component="form" noValidate onSubmit={(e) => e.preventDefault()} sx={{ display: 'grid', gap: 2 }} aria-label="Advanced settings">
      <Section
        title="Access"
        description={
          <>
            Who may open the avatar, and what it says first. To have visitors sign in with Google or SmartPension first, set up the
            identity service in your{' '}
            <Link component={RouterLink} to={paths.oauthConfigs}>
              OAuth configs
            </Link>{' '}
            (<Link component={RouterLink} to={paths.oauthHelp}>how</Link>).
          </>
        }
      >
        <Controller
          control={advancedForm.control}
          name="encKeyId"
          render={({ field }) => (
            <TextField
              select
              label="Encryption"
              value={field.value}
              onChange={field.onChange}
              size="small"
              fullWidth
              helperText="Token-based access with one of your encryption keys."
              slotProps={{ select: { displayEmpty: true }, inputLabel: { shrink: true } }}
            >
              <MenuItem value="">None (public)</MenuItem>
              {encKeys.map((key) => (
                <MenuItem key={key.id} value={String(key.id)}>
                  {key.name}
                  {key.defaultKey ? ' (default)' : ''}
                </MenuItem>
              ))}
            </TextField>
          )}
        />
        <Controller
          control={advancedForm.control}
          name="wakeUpMessage"
          render={({ field, fieldState }) => (
            <TextField
              label="Wake Up Message"
              value={field.value}
              onChange={field.onChange}
              onBlur={field.onBlur}
              inputRef={field.ref}
              name={field.name}
              error={fieldState.invalid}
              helperText={fieldState.error?.message ?? 'Said when a visitor connects.'}
              size="small"
              fullWidth
              multiline
              minRows={2}
            />
          )}
        />
      </Section>

      <Section
        title="Sign-in and billing"
        description="Optional checks before a conversation starts. The billing URL is called with your header before the session and again every ping time; a refusal ends the session."
      >
        <OAuthFields />
        <TextInputField name="billingAuthURL" label="Billing Auth URL" type="url" helperText="Leave empty for no billing check." />
        <TextInputField name="billingAuthHeader" label="Billing Auth Header" autoComplete="off" helperText="Sent with each billing check." />
        <NumberField name="billingAuthPingTime" label="Billing Auth Ping Time" unit="s" helperText={`Default ${AvatarLimits.billingAuthPingTimeDefault} s.`} />
        <Controller
          control={advancedForm.control}
          name="allowedOrigins"
          render={({ field, fieldState }) => (
            <TextField
              label="Allowed origins"
              value={field.value}
              onChange={field.onChange}
              onBlur={field.onBlur}
              inputRef={field.ref}
              name={field.name}
              error={fieldState.invalid}
              helperText={fieldState.error?.message ?? 'Sites that may embed this avatar, one per line (https://www.example.com). Empty: any site.'}
              size="small"
              fullWidth
              multiline
              minRows={2}
              placeholder="https://www.example.com"
              slotProps={{ htmlInput: { spellCheck: false, maxLength: 4200 } }}
              sx={{ gridColumn: '1 / -1' }}
            />
          )}
        />
      </Section>

      <Section
        title="Session limits"
        description="Seconds of conversation. After the daily per-session or per-IP limit the avatar switches to echo-back for 24 hours; the demo duration ends the call without switching."
      >
        <LimitField name="dailyLimitPerSession" label="Daily Limit Per Session" />
        <LimitField name="dailyLimitPerIP" label="Daily Limit Per IP" />
        <LimitField name="demoLimit" label="Demo duration" />
        <NumberField
          name="idleTimeout"
          label="Idle Timeout"
          unit="s"
          disabled={!isAdminProxy}
          helperText={isAdminProxy ? `At most ${AvatarLimits.idleTimeoutMax} seconds.` : 'Idle calls end after this time. Only an administrator can change it.'}
        />
      </Section>

      <Section title="Realtime and chat" badge={isAdminProxy ? adminBadge : undefined}>
        {isAdminProxy ? <SwitchField name="realtime" label="Realtime" /> : null}
        {isAdminProxy && !isSpeechToSpeech ? <SwitchField name="sendChatHistory" label="Send Chat History" /> : null}
        {isAdminProxy && !isSpeechToSpeech ? <SwitchField name="handleSttResponse" label="Handle STT Response" /> : null}
        {isAdminProxy ? <NumberField name="wordsPerSecond" label="Words Spoken Per Second" helperText="Default 3." /> : null}
        {realtime ? (
          <SwitchField name="transcriptionStreaming" label="Enable Realtime Message Streaming" helperText="Stream the avatar's words to the chat as they are spoken." />
        ) : (
          <Typography variant="body2" color="text.secondary" sx={{ gridColumn: '1 / -1' }}>
            Realtime message streaming is available for realtime avatars.
          </Typography>
        )}
      </Section>

      {!isSpeechToSpeech ? (
        <Section title="Interruptions" description="Whether and when a visitor can talk over the avatar.">
          <SwitchField name="allowInterruptions" label="Allow interruptions" />
          <Box />
          <NumberField name="minInterruptionDuration" label="Interrupt speech duration" unit="s" helperText="Default 0.5 s." />
          <NumberField name="minInterruptionWords" label="Interrupt min words" helperText="Default 0; may be left blank." />
        </Section>
      ) : null}

      {!isSpeechToSpeech ? (
        <Section title="Fillers" description={`A short line the avatar says in its own voice when its answer takes more than ${FillerOptions.afterMs / 1000} s (a function call, a slow model), at most once per answer. Off by default: without headphones a visitor's microphone may hear it.`}>
          <SwitchField name="fillersEnabled" label="Say a filler while the answer is slow" />
          <FillersField />
        </Section>
      ) : null}

      {isSpeechToSpeech ? (
        <Section title="Voice Activity Detection" description="Speech to speech (realtime model) detection.">
          <NumberField name="realtimeVad.threshold" label="Threshold" helperText="0.0 - 1.0, default 0.5" />
          <NumberField name="realtimeVad.prefix_padding_ms" label="Prefix padding" unit="ms" helperText="Default 300 ms" />
          <NumberField name="realtimeVad.silence_duration_ms" label="Silence duration" unit="ms" helperText="Default 500 ms" />
        </Section>
      ) : (
        <Section title="Voice Activity Detection" description="When the visitor has started and finished speaking.">
          <NumberField name="vad.min_endpointing_delay" label="Min endpointing delay" unit="s" helperText="Default 0.5 s" />
          <NumberField name="vad.max_endpointing_delay" label="Max endpointing delay" unit="s" helperText="Default 6 s" />
          <NumberField name="vad.min_speech_duration" label="Min speech duration" unit="s" helperText="Default 0.05 s" />
          <NumberField name="vad.min_silence_duration" label="Min silence duration" unit="s" helperText="Default 0.55 s" />
          <NumberField name="vad.prefix_padding_duration" label="Prefix padding duration" unit="s" helperText="Default 0.5 s" />
          <NumberField name="vad.max_buffered_speech" label="Max buffered speech" unit="s" helperText="Default 60 s" />
          <NumberField name="vad.activation_threshold" label="Activation threshold" helperText="0.0 - 1.0, default 0.5" />
        </Section>
      )}
    </Box>
  );
}
