import { useState } from 'react';
import { Link as RouterLink, useSearchParams } from 'react-router';
import Alert from '@mui/material/Alert';
import AlertTitle from '@mui/material/AlertTitle';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import Checkbox from '@mui/material/Checkbox';
import FormControl from '@mui/material/FormControl';
import FormControlLabel from '@mui/material/FormControlLabel';
import FormGroup from '@mui/material/FormGroup';
import FormHelperText from '@mui/material/FormHelperText';
import FormLabel from '@mui/material/FormLabel';
import MenuItem from '@mui/material/MenuItem';
import Paper from '@mui/material/Paper';
import Radio from '@mui/material/Radio';
import RadioGroup from '@mui/material/RadioGroup';
import Skeleton from '@mui/material/Skeleton';
import TextField from '@mui/material/TextField';
import ArrowBackIcon from '@mui/icons-material/ArrowBack';
import { PrivacyMessages, ZAvatarPrivacy, type TAvatarPrivacy, type TRetentionMode } from '@persona/contract';
import { PageContainer } from '../../../components/page-container';
import { PageHeader } from '../../../components/page-header';
import { errorMessages } from '../../../lib/api-client';
import { paths } from '../../../lib/paths';
import { showToast } from '../../../lib/toast';
import { useDocumentTitle } from '../../../lib/use-document-title';
import { useAvatarPrivacy, useRedactStored, useSaveAvatarPrivacy } from '../api/avatar-privacy';
import { ConfirmDialog } from '../../../components/confirm-dialog';
import { useAvatarNames } from '../api/list-avatar-names';

const KINDS = ['email', 'phone', 'card', 'iban'] as const;

/** /privacy?avatarId=: an avatar's redaction at rest and retention (ADR 097), reached from Conversations. */
export function PrivacyRoute() {
  useDocumentTitle(PrivacyMessages.title);
  const [params, setParams] = useSearchParams();
  const raw = Number(params.get('avatarId'));
  const avatarId = Number.isInteger(raw) && raw > 0 ? raw : null;
  const avatars = useAvatarNames();
  const privacy = useAvatarPrivacy(avatarId);

  return (
    <PageContainer maxWidth="md">
      <Button component={RouterLink} to={avatarId ? `${paths.conversations}?avatarId=${avatarId}` : paths.conversations} startIcon={<ArrowBackIcon />} color="inherit" size="small" sx={{ mb: 1.5, ml: -1 }}>
        Conversations
      </Button>
      <PageHeader title={PrivacyMessages.title} description={PrivacyMessages.intro} />
      <TextField
        select
        label="Avatar"
        value={avatarId !== null && avatars.data?.some((a) => a.id === avatarId) ? String(avatarId) : ''}
        onChange={(e) => setParams({ avatarId: e.target.value }, { replace: true })}
        sx={{ minWidth: 260, mb: 2 }}
        size="small"
        disabled={!avatars.data}
      >
        {(avatars.data ?? []).map((a) => (
          <MenuItem key={a.id} value={String(a.id)}>
            {a.name}
          </MenuItem>
        ))}
      </TextField>
      {avatarId === null ? (
        <Alert severity="info">{PrivacyMessages.chooseAvatar}</Alert>
      ) : privacy.isPending ? (
        <Box role="status" aria-label="Loading the privacy settings">
          <Skeleton variant="rounded" height={420} />
        </Box>
      ) : privacy.isError ? (
        <Alert
          severity="error"
          action={
            <Button color="inherit" size="small" onClick={() => void privacy.refetch()}>
              Retry
            </Button>
          }
        >
          <AlertTitle>{PrivacyMessages.loadFailed}</AlertTitle>
          {errorMessages(privacy.error).join(' ')}
        </Alert>
      ) : (
        <PrivacyForm key={`${avatarId}:${privacy.dataUpdatedAt}`} stored={privacy.data} />
      )}
    </PageContainer>
  );
}

function PrivacyForm({ stored }: { stored: TAvatarPrivacy }) {
  const save = useSaveAvatarPrivacy();
  const [redaction, setRedaction] = useState(stored.redaction);
  const [patterns, setPatterns] = useState(stored.redaction.patterns.join('\n'));
  const [mode, setMode] = useState<TRetentionMode>(stored.retention.mode);
  const [days, setDays] = useState(stored.retention.days === null ? '30' : String(stored.retention.days));
  const [problems, setProblems] = useState<string[]>([]);

  const submit = (e: React.FormEvent) => {
    e.preventDefault();
    const draft = {
      avatarId: stored.avatarId,
      redaction: { ...redaction, patterns: patterns.split('\n').map((p) => p.trim()).filter((p) => p !== '') },
      retention: { mode, days: mode === 'days' ? (days.trim() === '' ? Number.NaN : Number(days)) : null },
    };
    // The contract's schema says in the browser what the server would.
    const parsed = ZAvatarPrivacy.safeParse(draft);
    if (!parsed.success) {
      setProblems([...new Set(parsed.error.issues.map((i) => i.message))]);
      return;
    }
    setProblems([]);
    save.mutate(parsed.data, { onSuccess: () => void showToast(PrivacyMessages.saved, 'success') });
  };

  const errors = problems.length ? problems : save.isError ? [PrivacyMessages.saveFailed, ...errorMessages(save.error)] : [];
  // Stored conversations are redacted with the saved settings: the form must say what is saved.
  const saved = save.data?.redaction ?? stored.redaction;
  const draftPatterns = patterns.split('\n').map((p) => p.trim()).filter((p) => p !== '');
  const unsaved = KINDS.some((k) => redaction[k] !== saved[k]) || draftPatterns.join('\n') !== saved.patterns.join('\n');
  const redactionOn = KINDS.some((k) => saved[k]) || saved.patterns.length > 0;

  return (
    <Paper component="form" variant="outlined" noValidate onSubmit={submit} sx={{ p: { xs: 2, sm: 3 }, display: 'grid', gap: 3 }}>
      <FormControl component="fieldset">
        <FormLabel component="legend" sx={{ fontWeight: 600, color: 'text.primary', mb: 0.5 }}>
          {PrivacyMessages.redactionTitle}
        </FormLabel>
        <FormHelperText sx={{ mx: 0, mb: 1 }}>{PrivacyMessages.redactionHelp}</FormHelperText>
        <FormGroup sx={{ display: 'grid', gridTemplateColumns: { xs: '1fr', sm: '1fr 1fr' } }}>
          {KINDS.map((kind) => (
            <FormControlLabel
              key={kind}
              control={<Checkbox checked={redaction[kind]} onChange={(e) => setRedaction({ ...redaction, [kind]: e.target.checked })} />}
              label={`${PrivacyMessages[kind]} → [${kind}]`}
            />
          ))}
        </FormGroup>
        <TextField
          label={PrivacyMessages.patterns}
          value={patterns}
          onChange={(e) => setPatterns(e.target.value)}
          multiline
          minRows={3}
          helperText={PrivacyMessages.patternsHelp}
          slotProps={{ htmlInput: { spellCheck: false, style: { fontFamily: 'ui-monospace, SFMono-Regular, Menlo, monospace' } } }}
          sx={{ mt: 2 }}
        />
        <RedactStored avatarId={stored.avatarId} blockedBy={unsaved ? PrivacyMessages.redactStoredSaveFirst : !redactionOn ? PrivacyMessages.redactStoredOff : null} />
      </FormControl>
      <FormControl component="fieldset">
        <FormLabel component="legend" sx={{ fontWeight: 600, color: 'text.primary', mb: 0.5 }}>
          {PrivacyMessages.retentionTitle}
        </FormLabel>
        <RadioGroup value={mode} onChange={(e) => setMode(e.target.value as TRetentionMode)}>
          <FormControlLabel value="forever" control={<Radio />} label={PrivacyMessages.retentionForever} />
          <Box sx={{ display: 'flex', alignItems: 'center', flexWrap: 'wrap', gap: 1.5 }}>
            <FormControlLabel value="days" control={<Radio />} label={PrivacyMessages.retentionDays} sx={{ mr: 0 }} />
            <TextField
              label={PrivacyMessages.days}
              type="number"
              size="small"
              value={days}
              disabled={mode !== 'days'}
              onChange={(e) => setDays(e.target.value)}
              slotProps={{ htmlInput: { min: 1, max: 3650, step: 1, inputMode: 'numeric' } }}
              sx={{ width: 110, ml: { xs: 4, sm: 0 } }}
            />
          </Box>
          <FormControlLabel value="counts" control={<Radio />} label={PrivacyMessages.retentionCounts} />
        </RadioGroup>
        <FormHelperText sx={{ mx: 0 }}>{PrivacyMessages.retentionHelp}</FormHelperText>
      </FormControl>
      {errors.length ? (
        <Alert severity="error">
          {errors.map((m) => (
            <div key={m}>{m}</div>
          ))}
        </Alert>
      ) : null}
      <Box>
        <Button type="submit" variant="contained" loading={save.isPending}>
          {PrivacyMessages.save}
        </Button>
      </Box>
    </Paper>
  );
}

/** "Apply to stored conversations": the saved redaction over what was stored before (ADR 097). */
function RedactStored({ avatarId, blockedBy }: { avatarId: number; blockedBy: string | null }) {
  const [asking, setAsking] = useState(false);
  const [looked, setLooked] = useState(0);
  const run = useRedactStored(setLooked);
  const status = run.isPending ? PrivacyMessages.redactStoredRunning(looked) : run.isSuccess ? PrivacyMessages.redactStoredDone(run.data.looked, run.data.changed) : null;
  return (
    <Box sx={{ mt: 2, display: 'grid', gap: 1, justifyItems: 'start' }}>
      <Button variant="outlined" color="warning" disabled={blockedBy !== null || run.isPending} loading={run.isPending} onClick={() => setAsking(true)}>
        {PrivacyMessages.redactStored}
      </Button>
      <FormHelperText sx={{ mx: 0, mt: 0 }}>{blockedBy ?? PrivacyMessages.redactStoredHelp}</FormHelperText>
      {status ? (
        <Alert severity={run.isSuccess ? 'success' : 'info'} role="status" sx={{ py: 0 }}>
          {status}
        </Alert>
      ) : null}
      {run.isError ? (
        <Alert severity="error">
          {PrivacyMessages.redactStoredFailed} {errorMessages(run.error).join(' ')}
        </Alert>
      ) : null}
      <ConfirmDialog
        open={asking}
        title={PrivacyMessages.redactStored}
        confirmLabel="Redact"
        cancelLabel="Cancel"
        tone="error"
        onConfirm={() => {
          setAsking(false);
          setLooked(0);
          run.mutate(avatarId);
        }}
        onCancel={() => setAsking(false)}
      >
        {PrivacyMessages.redactStoredConfirm}
      </ConfirmDialog>
    </Box>
  );
}
