import { useEffect, useState } from 'react';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import ContentCopyIcon from '@mui/icons-material/ContentCopy';
import { Limits } from '@persona/contract';

/** A dark code block with a copy button. */
export function CodeBlock({ code, label }: { code: string; label: string }) {
  const [isCopied, setIsCopied] = useState(false);

  useEffect(() => {
    if (!isCopied) return;
    const timer = setTimeout(() => setIsCopied(false), Limits.copyNoticeMs);
    return () => clearTimeout(timer);
  }, [isCopied]);

  const copy = () => {
    void navigator.clipboard?.writeText(code).then(() => setIsCopied(true));
  };

  return (
    <Box sx={{ position: 'relative', mb: 2 }}>
      <Box
        component="pre"
        aria-label={label}
        // A scrolling block must be reachable from the keyboard (WCAG 2.1.1).
        tabIndex={0}
        sx={{
          m: 0,
          p: 2,
          pr: { xs: 2, sm: 12 },
          pt: { xs: 6, sm: 2 },
          bgcolor: '#0f172a',
          color: '#e2e8f0',
          borderRadius: 2,
          overflowX: 'auto',
          fontSize: '0.8125rem',
          lineHeight: 1.6,
          fontFamily: 'ui-monospace, SFMono-Regular, Menlo, Consolas, monospace',
        }}
      >
        <code>{code}</code>
      </Box>
      <Button
        size="small"
        variant="contained"
        color="inherit"
        onClick={copy}
        startIcon={<ContentCopyIcon fontSize="small" />}
        sx={{ position: 'absolute', top: 8, right: 8, bgcolor: 'rgba(255,255,255,0.12)', color: '#e2e8f0', '&:hover': { bgcolor: 'rgba(255,255,255,0.2)' } }}
      >
        {isCopied ? 'Copied!' : 'Copy'}
      </Button>
    </Box>
  );
}
