import { useEffect } from 'react';
import { styled } from '@mui/material/styles';
import { MaterialDesignContent, SnackbarProvider } from 'notistack';
import { Limits } from '@persona/contract';
import { markToasterReady } from '../lib/toast';

/** notistack's own colours carry white text below 4.5:1 (its green is 3.3:1): the theme's AA colours instead. */
const Toast = styled(MaterialDesignContent)(({ theme }) => ({
  '&.notistack-MuiContent-success': { backgroundColor: theme.palette.success.main },
  '&.notistack-MuiContent-error': { backgroundColor: theme.palette.error.main },
  '&.notistack-MuiContent-warning': { backgroundColor: theme.palette.warning.main },
  '&.notistack-MuiContent-info': { backgroundColor: theme.palette.primary.main },
}));

/** Where toasts appear (mounted beside the app on the first toast). */
export function Toaster() {
  useEffect(() => markToasterReady(), []);
  return (
    <SnackbarProvider
      maxSnack={3}
      autoHideDuration={Limits.toastErrorMs}
      // Top right, below the top bar: clear of the forms' fields and their error messages.
      anchorOrigin={{ vertical: 'top', horizontal: 'right' }}
      classes={{ containerRoot: 'persona-toasts' }}
      Components={{ success: Toast, error: Toast, warning: Toast, info: Toast, default: Toast }}
    />
  );
}
