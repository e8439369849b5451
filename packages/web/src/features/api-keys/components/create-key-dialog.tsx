import { useEffect, useState } from 'react';
import Alert from '@mui/material/Alert';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import Checkbox from '@mui/material/Checkbox';
import Chip from '@mui/material/Chip';
import Dialog from '@mui/material/Dialog';
import DialogActions from '@mui/material/DialogActions';
import DialogContent from '@mui/material/DialogContent';
import DialogTitle from '@mui/material/DialogTitle';
import FormControl from '@mui/material/FormControl';
import FormControlLabel from '@mui/material/FormControlLabel';
import FormGroup from '@mui/material/FormGroup';
import FormHelperText from '@mui/material/FormHelperText';
import FormLabel from '@mui/material/FormLabel';
import MenuItem from '@mui/material/MenuItem';
import TextField from '@mui/material/TextField';
import ContentCopyIcon from '@mui/icons-material/ContentCopy';
import CheckIcon from '@mui/icons-material/Check';
import { ApiKeyLimits, ApiKeyMessages, ApiKeyScopeLabels, ApiKeyScopes, Limits, ZAddApiKeyRequest, type TAddApiKeyResponse, type TApiKeyScope } from '@persona/contract';
import { errorMessages } from '../../../lib/api-client';
import { copyText } from '../../../lib/copy-text';
import { useAddApiKey } from '../api/api-keys';

type Expiry = '30' | '90' | '365' | 'never';
const EXPIRY_LABELS: Record<Expiry, string> = { '30': '30 days', '90': '90 days', '365': '1 year', never: 'Never' };

/** Create an API key (name, scopes, expiry), then its secret shown this once with Copy. */
export function CreateKeyDialog({ open, onClose }: { open: boolean; onClose: () => void }) {
  const add = useAddApiKey();
  const [name, setName] = useState('');
  const [scopes, setScopes] = useState<TApiKeyScope[]>([]);
  const [expiry, setExpiry] = useState<Expiry>('90');
  const [errors, setErrors] = useState<{ name?: string; scopes?: string; form?: string }>({});
  const [created, setCreated] = useState<TAddApiKeyResponse | null>(null);
  const [copy, setCopy] = useState<'idle' | 'copied' | 'failed'>('idle');

  useEffect(() => {
    if (!open) return;
    setName('');
    setScopes([]);
    setExpiry('90');
    setErrors({});
    setCreated(null);
    setCopy('idle');
  }, [open]);

  useEffect(() => {
    if (copy !== 'copied') return;
    const timer = setTimeout(() => setCopy('idle'), Limits.copyNoticeMs);
    return () => clearTimeout(timer);
  }, [copy]);

  const toggle = (scope: TApiKeyScope) => setScopes((s) => (s.includes(scope) ? s.filter((x) => x !== scope) : ApiKeyScopes.filter((x) => x === scope || s.includes(x))));

  const submit = () => {
    const input = { name, scopes, expiresInDays: expiry === 'never' ? null : (Number(expiry) as 30 | 90 | 365) };
    const parsed = ZAddApiKeyRequest.safeParse(input);
    if (!parsed.success) {
      const next: typeof errors = {};
      for (const issue of parsed.error.issues) {
        if (issue.path[0] === 'name') next.name ??= issue.message;
        else if (issue.path[0] === 'scopes') next.scopes ??= issue.message;
      }
      setErrors(next);
      return;
    }
    setErrors({});
    add.mutate(input, { onSuccess: setCreated, onError: (error) => setErrors({ form: errorMessages(error).join(' ') }) });
  };

  const doCopy = () => {
    if (!created) return;
    copyText(created.secret).then(
      () => setCopy('copied'),
      () => setCopy('failed'),
    );
  };

  return (
    <Dialog open={open} onClose={created || add.isPending ? undefined : onClose} maxWidth="sm" fullWidth aria-labelledby="api-key-dialog-title">
      <DialogTitle id="api-key-dialog-title" sx={{ fontWeight: 700 }}>
        {created ? `API key "${created.apiKey.name}"` : 'New API key'}
      </DialogTitle>
      <DialogContent>
        {created ? (
          <Box>
            <Alert severity="warning" sx={{ mb: 2 }}>
              {ApiKeyMessages.shownOnce}
            </Alert>
            <Box
              component="pre"
              aria-label="API key"
              tabIndex={0}
              sx={{ m: 0, p: 2, bgcolor: '#0f172a', color: '#e2e8f0', borderRadius: 2, overflowX: 'auto', fontSize: 13, fontFamily: 'ui-monospace, SFMono-Regular, Menlo, Consolas, monospace', whiteSpace: 'pre-wrap', wordBreak: 'break-all' }}
            >
              {created.secret}
            </Box>
            <Box sx={{ display: 'flex', alignItems: 'center', gap: 1.5, mt: 1.5, flexWrap: 'wrap' }}>
              <Button variant="contained" startIcon={copy === 'copied' ? <CheckIcon /> : <ContentCopyIcon />} onClick={doCopy}>
                Copy
              </Button>
              <Box role="status" aria-live="polite">
                {copy === 'copied' ? <Chip color="success" label={ApiKeyMessages.copied} /> : null}
                {copy === 'failed' ? <Chip color="error" variant="outlined" label="Copy failed: select the key and copy it by hand." /> : null}
              </Box>
            </Box>
          </Box>
        ) : (
          <Box
            component="form"
            id="api-key-form"
            noValidate
            onSubmit={(e) => {
              e.preventDefault();
              submit();
            }}
            sx={{ display: 'grid', gap: 2.5, pt: 1 }}
          >
            <TextField
              label="Name"
              value={name}
              onChange={(e) => setName(e.target.value)}
              error={!!errors.name}
              helperText={errors.name ?? 'Where it is used, e.g. "CRM sync".'}
              autoComplete="off"
              slotProps={{ htmlInput: { maxLength: ApiKeyLimits.nameMax } }}
              fullWidth
            />
            <FormControl error={!!errors.scopes} component="fieldset" variant="standard">
              <FormLabel component="legend">Scopes</FormLabel>
              <FormGroup>
                {ApiKeyScopes.map((scope) => (
                  <FormControlLabel
                    key={scope}
                    control={<Checkbox checked={scopes.includes(scope)} onChange={() => toggle(scope)} />}
                    label={
                      <span>
                        <Box component="code" sx={{ fontSize: 13, mr: 1 }}>
                          {scope}
                        </Box>
                        {ApiKeyScopeLabels[scope]}
                      </span>
                    }
                  />
                ))}
              </FormGroup>
              <FormHelperText>{errors.scopes ?? 'A key can do only what its scopes allow, on your account only.'}</FormHelperText>
            </FormControl>
            <TextField select label="Expires after" value={expiry} onChange={(e) => setExpiry(e.target.value as Expiry)} sx={{ maxWidth: 240 }}>
              {(Object.keys(EXPIRY_LABELS) as Expiry[]).map((k) => (
                <MenuItem key={k} value={k}>
                  {EXPIRY_LABELS[k]}
                </MenuItem>
              ))}
            </TextField>
            {errors.form ? <Alert severity="error">{errors.form}</Alert> : null}
          </Box>
        )}
      </DialogContent>
      <DialogActions sx={{ px: 3, pb: 2 }}>
        {created ? (
          <Button variant="contained" onClick={onClose}>
            Done
          </Button>
        ) : (
          <>
            <Button onClick={onClose} disabled={add.isPending}>
              Cancel
            </Button>
            <Button type="submit" form="api-key-form" variant="contained" disabled={add.isPending}>
              {add.isPending ? 'Creating…' : 'Create'}
            </Button>
          </>
        )}
      </DialogActions>
    </Dialog>
  );
}
