import { useEffect } from 'react';
import { SnackbarProvider } from 'notistack';
import { Limits } from '@persona/contract';
import { markToasterReady } from '../lib/toast';

/** Where toasts appear (mounted beside the app on the first toast). */
export function Toaster() {
  useEffect(() => markToasterReady(), []);
  return (
    <SnackbarProvider
      maxSnack={3}
      autoHideDuration={Limits.toastErrorMs}
      anchorOrigin={{ vertical: 'bottom', horizontal: 'center' }}
    />
  );
}
