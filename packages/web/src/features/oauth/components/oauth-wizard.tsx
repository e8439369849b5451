import { useState } from 'react';
import { Controller, useForm, useWatch, type FieldPath } from 'react-hook-form';
import { zodResolver } from '@hookform/resolvers/zod';
import { Link as RouterLink } from 'react-router';
import Alert from '@mui/material/Alert';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import Link from '@mui/material/Link';
import MenuItem from '@mui/material/MenuItem';
import Step from '@mui/material/Step';
import StepButton from '@mui/material/StepButton';
import Stepper from '@mui/material/Stepper';
import TextField from '@mui/material/TextField';
import Typography from '@mui/material/Typography';
import HelpOutlineIcon from '@mui/icons-material/HelpOutlineOutlined';
import {
  OAUTH_PARTNERS,
  OAuthMessages,
  OAuthPartnerDefaults,
  isSecretNeededAgain,
  oauthAppInputSchema,
  type TAddOAuthAppResponse,
  type TOAuthApp,
  type TOAuthAppInput,
  type TOAuthPartner,
} from '@persona/contract';
import { errorMessages } from '../../../lib/api-client';
import { paths } from '../../../lib/paths';
import { useSaveOAuthApp } from '../api/save-oauth-app';
import type { OAuthHelpKey } from '../help';

type StepId = 'info' | 'callback' | 'details';
type FormValues = TOAuthAppInput;

const STEP_TITLES: Record<StepId, string> = { info: 'OAuth Info', callback: 'Callback URL', details: 'OAuth Details' };
const STEP_FIELDS: Record<StepId, FieldPath<FormValues>[]> = {
  info: ['appName', 'partner'],
  callback: [],
  details: ['clientId', 'clientSecret', 'oauthURL', 'tokenIssueURL'],
};

export interface OAuthWizardProps {
  /** The config being edited; absent to create one. */
  app?: TOAuthApp;
  onSaved: (answer: TAddOAuthAppResponse) => void;
  onHelp?: (key: OAuthHelpKey) => void;
  /** Shown instead of the form once saved. */
  successMessage?: React.ReactNode;
}

/**
 * The OAuth config wizard: step 0 'OAuth Info'; then 'OAuth Details' (step 1 on create, step 2 on
 * edit, after the 'Callback URL' to register with the identity service). Next validates the current
 * step, titles open their step, and Submit follows the last step.
 */
export function OAuthWizard({ app, onSaved, onHelp, successMessage }: OAuthWizardProps) {
  const isEdit = app !== undefined;
  const steps: StepId[] = isEdit ? ['info', 'callback', 'details'] : ['info', 'details'];
  const [active, setActive] = useState(0);
  const [serverErrors, setServerErrors] = useState<string[]>([]);
  const save = useSaveOAuthApp();
  const form = useForm<FormValues>({
    // On edit, a changed OAuth URL or Token Issue URL needs the client secret again (as on the server).
    resolver: zodResolver(oauthAppInputSchema(app)),
    mode: 'onSubmit',
    reValidateMode: 'onChange',
    defaultValues: app
      ? { appId: app.appId, appName: app.appName, partner: app.partner, clientId: app.clientId, clientSecret: '', oauthURL: app.oauthURL, tokenIssueURL: app.tokenIssueURL }
      : { appName: '', partner: '' as TOAuthPartner, clientId: '', clientSecret: '', oauthURL: '', tokenIssueURL: '' },
  });
  const isLast = active === steps.length - 1;
  const [oauthURL, tokenIssueURL] = useWatch({ control: form.control, name: ['oauthURL', 'tokenIssueURL'] });
  const isSecretNeeded = app !== undefined && isSecretNeededAgain(app, { oauthURL: oauthURL ?? '', tokenIssueURL: tokenIssueURL ?? '' });

  /** Validates the steps before `target` in order; opens the first invalid one, else the target. */
  const goTo = async (target: number) => {
    for (let i = 0; i < target; i += 1) {
      const fields = STEP_FIELDS[steps[i]!];
      if (fields.length > 0 && !(await form.trigger(fields))) {
        setActive(i);
        return;
      }
    }
    setActive(target);
  };

  const submit = form.handleSubmit(
    async (values) => {
      setServerErrors([]);
      try {
        const answer = await save.mutateAsync({ ...values, appId: app?.appId ?? null });
        onSaved(answer);
      } catch (error) {
        setServerErrors(errorMessages(error));
      }
    },
    (errors) => {
      const first = steps.findIndex((step) => STEP_FIELDS[step].some((field) => field in errors));
      if (first >= 0) setActive(first);
    },
  );

  if (successMessage) return <>{successMessage}</>;

  const text = (name: FieldPath<FormValues>, label: string, help: OAuthHelpKey, props: { type?: string; placeholder?: string; helperText?: string } = {}) => (
    <Controller
      control={form.control}
      name={name}
      render={({ field, fieldState }) => (
        <TextField
          {...field}
          value={(field.value as string | null | undefined) ?? ''}
          onChange={(e) => {
            field.onChange(e);
            // An error clears as soon as the field gets a value.
            if (fieldState.error) void form.trigger(name);
            // Whether the secret is needed again follows the endpoints.
            if ((name === 'oauthURL' || name === 'tokenIssueURL') && form.getFieldState('clientSecret').error) void form.trigger('clientSecret');
          }}
          label={label}
          type={props.type ?? 'text'}
          placeholder={props.placeholder}
          error={fieldState.invalid}
          helperText={fieldState.error?.message ?? props.helperText}
          onFocus={() => onHelp?.(help)}
          autoComplete="off"
          fullWidth
        />
      )}
    />
  );

  const step = steps[active]!;
  return (
    <Box component="form" noValidate onSubmit={isLast ? submit : (e) => { e.preventDefault(); void goTo(active + 1); }}>
      <Stepper nonLinear activeStep={active} sx={{ mb: 3 }}>
        {steps.map((id, index) => (
          <Step key={id} completed={index < active}>
            <StepButton onClick={() => void goTo(index)}>{STEP_TITLES[id]}</StepButton>
          </Step>
        ))}
      </Stepper>

      {step === 'info' ? (
        <Box sx={{ display: 'grid', gap: 2.5 }}>
          {text('appName', 'Name', 'appName', { helperText: 'A name you recognise, e.g. "Staff Google sign-in"' })}
          <Controller
            control={form.control}
            name="partner"
            render={({ field, fieldState }) => (
              <TextField
                {...field}
                select
                label="OAuth Identity Service"
                error={fieldState.invalid}
                helperText={fieldState.error?.message ?? 'The service your visitors sign in with'}
                onFocus={() => onHelp?.('partner')}
                onChange={(e) => {
                  const partner = e.target.value as TOAuthPartner;
                  field.onChange(partner);
                  if (fieldState.error) void form.trigger('partner');
                  const defaults = OAuthPartnerDefaults[partner];
                  if (defaults && !form.getValues('oauthURL') && !form.getValues('tokenIssueURL')) {
                    form.setValue('oauthURL', defaults.oauthURL);
                    form.setValue('tokenIssueURL', defaults.tokenIssueURL);
                  }
                }}
                fullWidth
              >
                {OAUTH_PARTNERS.map((partner) => (
                  <MenuItem key={partner} value={partner}>
                    {partner}
                  </MenuItem>
                ))}
              </TextField>
            )}
          />
        </Box>
      ) : null}

      {step === 'callback' && app ? (
        <Box sx={{ display: 'grid', gap: 2 }}>
          <Typography color="text.secondary">
            Register this redirect URI with {app.partner}
            {app.partner === 'Google' ? (
              <>
                {' '}under <em>Authorized redirect URIs</em> of the OAuth client
              </>
            ) : null}
            . The portal sets it; it cannot be changed.
          </Typography>
          <TextField
            label="Callback URL"
            value={app.callbackURL}
            fullWidth
            multiline
            slotProps={{ htmlInput: { readOnly: true, style: { fontFamily: 'ui-monospace, SFMono-Regular, Menlo, Consolas, monospace', fontSize: 14 } } }}
            onFocus={(e) => {
              e.target.select();
              onHelp?.('callbackURL');
            }}
          />
        </Box>
      ) : null}

      {step === 'details' ? (
        <Box sx={{ display: 'grid', gap: 2.5 }}>
          {text('clientId', 'Client Id', 'clientId')}
          {text('clientSecret', 'Client Secret', 'clientSecret', {
            type: 'password',
            helperText: !isEdit ? undefined : isSecretNeeded ? OAuthMessages.clientSecretReenter : `Leave empty to keep the current secret (${app.clientSecret}).`,
          })}
          {text('oauthURL', 'OAuth URL', 'oauthURL', { placeholder: 'https://accounts.google.com/o/oauth2/v2/auth' })}
          {text('tokenIssueURL', 'Token Issue URL', 'tokenIssueURL', { placeholder: 'https://oauth2.googleapis.com/token' })}
        </Box>
      ) : null}

      {serverErrors.length > 0 ? (
        <Alert severity="error" sx={{ mt: 2.5 }}>
          {serverErrors.join(' ')}
        </Alert>
      ) : null}

      <Box sx={{ display: 'flex', alignItems: 'center', gap: 1, mt: 3, flexWrap: 'wrap' }}>
        <Link component={RouterLink} to={paths.oauthHelp} sx={{ display: 'inline-flex', alignItems: 'center', gap: 0.5 }}>
          <HelpOutlineIcon fontSize="small" /> Need help?
        </Link>
        <Box sx={{ flex: 1 }} />
        <Button color="inherit" disabled={active === 0 || save.isPending} onClick={() => setActive(active - 1)}>
          Back
        </Button>
        {isLast ? (
          <Button type="submit" variant="contained" loading={save.isPending}>
            Submit
          </Button>
        ) : (
          <Button type="submit" variant="contained">
            Next
          </Button>
        )}
      </Box>
    </Box>
  );
}
