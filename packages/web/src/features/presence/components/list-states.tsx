import type { ReactNode } from 'react';
import Alert from '@mui/material/Alert';
import AlertTitle from '@mui/material/AlertTitle';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import CircularProgress from '@mui/material/CircularProgress';
import Typography from '@mui/material/Typography';
import { errorMessages } from '../../../lib/api-client';

/** The 'fetching' state of a list (spec section 4: lists have fetching, loaded and failed states). */
export function Fetching({ label }: { label: string }) {
  return (
    <Box role="status" aria-live="polite" sx={{ py: 6, display: 'flex', flexDirection: 'column', alignItems: 'center', gap: 1.5, color: 'text.secondary' }}>
      <CircularProgress size={30} aria-hidden />
      <Typography variant="body2">{label}</Typography>
    </Box>
  );
}

/** The 'failed' state: the spec's header, a hint and what went wrong, with Retry. */
export function Failed({ title, hint, error, onRetry }: { title: string; hint: string; error: unknown; onRetry: () => void }) {
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
      <Typography variant="body2">{hint}</Typography>
      <Typography variant="body2" sx={{ mt: 0.5, opacity: 0.8 }}>
        {errorMessages(error).join(' ')}
      </Typography>
    </Alert>
  );
}

/** An empty list: an icon, a title and what to do next. */
export function Empty({ icon, title, children }: { icon: ReactNode; title: string; children?: ReactNode }) {
  return (
    <Box sx={{ py: { xs: 5, sm: 7 }, px: 2, textAlign: 'center', display: 'flex', flexDirection: 'column', alignItems: 'center', gap: 1 }}>
      <Box sx={{ width: 56, height: 56, borderRadius: '50%', display: 'grid', placeItems: 'center', bgcolor: 'rgba(79, 70, 229, 0.08)', color: 'primary.main', mb: 1, '& svg': { fontSize: 30 } }}>
        {icon}
      </Box>
      <Typography variant="h5" component="p">
        {title}
      </Typography>
      {children ? (
        <Typography color="text.secondary" sx={{ maxWidth: 440 }}>
          {children}
        </Typography>
      ) : null}
    </Box>
  );
}
