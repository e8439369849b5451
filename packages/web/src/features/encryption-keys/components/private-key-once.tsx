import { useEffect, useState } from 'react';
import Alert from '@mui/material/Alert';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import Chip from '@mui/material/Chip';
import ContentCopyIcon from '@mui/icons-material/ContentCopy';
import CheckIcon from '@mui/icons-material/Check';
import { EncryptionKeyMessages, Limits } from '@persona/contract';
import { copyText } from '../../../lib/copy-text';

/** The private key, shown once after creation, with Copy and the 'Encryption Key Copied!' notice (2 s). */
export function PrivateKeyOnce({ privateKey, onFocusHelp }: { privateKey: string; onFocusHelp?: () => void }) {
  const [isCopied, setIsCopied] = useState(false);
  const [copyError, setCopyError] = useState(false);

  useEffect(() => {
    if (!isCopied) return;
    const timer = setTimeout(() => setIsCopied(false), Limits.copyNoticeMs);
    return () => clearTimeout(timer);
  }, [isCopied]);

  const copy = () => {
    onFocusHelp?.();
    copyText(privateKey).then(
      () => {
        setCopyError(false);
        setIsCopied(true);
      },
      () => setCopyError(true),
    );
  };

  return (
    <Box>
      <Alert severity="warning" sx={{ mb: 2 }}>
        {EncryptionKeyMessages.shownOnce}
      </Alert>
      <Box
        component="pre"
        aria-label="Private key"
        tabIndex={0}
        onFocus={onFocusHelp}
        sx={{
          m: 0,
          p: 2,
          bgcolor: '#0f172a',
          color: '#e2e8f0',
          borderRadius: 2,
          overflowX: 'auto',
          fontSize: 12.5,
          lineHeight: 1.6,
          fontFamily: 'ui-monospace, SFMono-Regular, Menlo, Consolas, monospace',
          whiteSpace: 'pre',
        }}
      >
        {privateKey}
      </Box>
      <Box sx={{ display: 'flex', alignItems: 'center', gap: 1.5, mt: 1.5, flexWrap: 'wrap' }}>
        <Button variant="contained" startIcon={isCopied ? <CheckIcon /> : <ContentCopyIcon />} onClick={copy}>
          Copy
        </Button>
        <Box role="status" aria-live="polite">
          {isCopied ? <Chip color="success" label={EncryptionKeyMessages.copied} /> : null}
          {copyError ? <Chip color="error" variant="outlined" label="Copy failed: select the key and copy it by hand." /> : null}
        </Box>
      </Box>
    </Box>
  );
}
