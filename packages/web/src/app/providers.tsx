import { useEffect, type ReactNode } from 'react';
import CssBaseline from '@mui/material/CssBaseline';
import { ThemeProvider } from '@mui/material/styles';
import { syncAuthAcrossTabs } from '../lib/auth-store';
import { ConfigGate } from './config-gate';
import { theme } from './theme';
import { ToasterHost } from './toaster-host';

/**
 * Theme, public configuration and toasts. TanStack Query's provider is added around each page
 * that uses it (see lazy-page.tsx), so the sign-in page does not download it.
 */
export function AppProviders({ children }: { children: ReactNode }) {
  useEffect(() => syncAuthAcrossTabs(), []);
  return (
    <ThemeProvider theme={theme}>
      <CssBaseline />
      <ConfigGate>{children}</ConfigGate>
      <ToasterHost />
    </ThemeProvider>
  );
}
