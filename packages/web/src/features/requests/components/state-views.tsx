import type { ReactNode } from 'react';
import Alert from '@mui/material/Alert';
import AlertTitle from '@mui/material/AlertTitle';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import CircularProgress from '@mui/material/CircularProgress';
import Paper from '@mui/material/Paper';
import Typography from '@mui/material/Typography';
import { errorMessages } from '../../../lib/api-client';

export function Fetching({ label }: { label: string }) {
  return (
    <Box role="status" sx={{ py: 6, display: 'grid', placeItems: 'center', gap: 1.5, color: 'text.secondary' }}>
      <CircularProgress size={30} aria-hidden />
      <Typography variant="body2">{label}</Typography>
    </Box>
  );
}

export function Failed({ title, error, onRetry }: { title: string; error: unknown; onRetry: () => void }) {
  return (
    <Alert
      severity="error"
      action={
        <Button color="inherit" size="small" onClick={onRetry}>
          Retry
        </Button>
      }
    >
      <AlertTitle>{title}</AlertTitle>
      {errorMessages(error).join(' ')}
    </Alert>
  );
}

export function EmptyNote({ icon, children }: { icon: ReactNode; children: ReactNode }) {
  return (
    <Paper variant="outlined" sx={{ p: { xs: 3, sm: 4 }, textAlign: 'center', color: 'text.secondary', display: 'grid', justifyItems: 'center', gap: 1, '& svg': { fontSize: 34, color: 'primary.main' } }}>
      {icon}
      <Typography>{children}</Typography>
    </Paper>
  );
}

export function SectionTitle({ children, count }: { children: ReactNode; count?: number }) {
  return (
    <Typography variant="h5" component="h2" sx={{ mb: 1.5, display: 'flex', alignItems: 'center', gap: 1 }}>
      {children}
      {count !== undefined ? (
        <Box component="span" sx={{ fontSize: '0.8125rem', fontWeight: 700, px: 1, py: 0.25, borderRadius: 10, bgcolor: 'rgba(79, 70, 229, 0.1)', color: 'primary.main' }}>
          {count}
        </Box>
      ) : null}
    </Typography>
  );
}
