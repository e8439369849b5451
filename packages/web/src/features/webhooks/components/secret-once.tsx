import { useState } from 'react';
import Alert from '@mui/material/Alert';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import Dialog from '@mui/material/Dialog';
import DialogActions from '@mui/material/DialogActions';
import DialogContent from '@mui/material/DialogContent';
import DialogTitle from '@mui/material/DialogTitle';
import Typography from '@mui/material/Typography';
import ContentCopyIcon from '@mui/icons-material/ContentCopy';
import CheckIcon from '@mui/icons-material/Check';
import { WEBHOOK_SIGNATURE_HEADER, WebhookMessages } from '@persona/contract';
import { copyText } from '../../../lib/copy-text';

/** The signing secret, shown once after add or roll, with Copy; Done forgets it. */
export function SecretOnceDialog({ secret, onDone }: { secret: string | null; onDone: () => void }) {
  const [copied, setCopied] = useState<'yes' | 'failed' | null>(null);
  return (
    <Dialog open={secret !== null} onClose={() => undefined} maxWidth="sm" fullWidth aria-labelledby="webhook-secret-title">
      <DialogTitle id="webhook-secret-title">New signing secret</DialogTitle>
      <DialogContent>
        <Alert severity="warning" sx={{ mb: 2 }}>
          {WebhookMessages.secretOnce}
        </Alert>
        <Box
          component="pre"
          aria-label="Signing secret"
          tabIndex={0}
          sx={{ m: 0, p: 2, bgcolor: '#0f172a', color: '#e2e8f0', borderRadius: 2, overflowX: 'auto', fontSize: 13, fontFamily: 'ui-monospace, SFMono-Regular, Menlo, Consolas, monospace' }}
        >
          {secret}
        </Box>
        <Typography variant="body2" color="text.secondary" sx={{ mt: 1.5 }}>
          Every request carries a <code>{WEBHOOK_SIGNATURE_HEADER}</code> header made with it: check it, and refuse requests older than 5 minutes (see the example receiver in the docs).
        </Typography>
        <Box role="status" aria-live="polite" sx={{ mt: 1, minHeight: 24 }}>
          {copied === 'yes' ? <Typography color="success.main">Secret copied.</Typography> : null}
          {copied === 'failed' ? <Typography color="error">Copy failed: select the secret and copy it by hand.</Typography> : null}
        </Box>
      </DialogContent>
      <DialogActions>
        <Button
          startIcon={copied === 'yes' ? <CheckIcon /> : <ContentCopyIcon />}
          onClick={() =>
            copyText(secret ?? '').then(
              () => setCopied('yes'),
              () => setCopied('failed'),
            )
          }
        >
          Copy
        </Button>
        <Button
          variant="contained"
          onClick={() => {
            setCopied(null);
            onDone();
          }}
        >
          Done
        </Button>
      </DialogActions>
    </Dialog>
  );
}
