import { useCallback, useEffect, useState, type ReactNode } from 'react';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import Typography from '@mui/material/Typography';
import { ErrorMessages, type TPublicConfig } from '@persona/contract';
import { FullPageLoader } from '../components/full-page-loader';
import { ApiError, apiRequest, errorMessages } from '../lib/api-client';
import { PublicConfigContext, parsePublicConfig, setPublicConfig } from '../lib/config';

/** GET /api/config: what the browser needs before sign-in (no auth header: the app key comes from here). */
export async function loadPublicConfig(): Promise<TPublicConfig> {
  const body = await apiRequest('/api/config', { auth: 'none' });
  const config = parsePublicConfig(body);
  if (!config) throw new ApiError({ kind: 'invalid-response', message: ErrorMessages.unknown, status: 200, body });
  setPublicConfig(config);
  return config;
}

type State = { status: 'loading' } | { status: 'ready'; config: TPublicConfig } | { status: 'failed'; error: unknown };

/** Renders the app once the public configuration is loaded: a small loader until then, a retry on failure. */
export function ConfigGate({ children }: { children: ReactNode }) {
  const [state, setState] = useState<State>({ status: 'loading' });

  const load = useCallback(() => {
    setState({ status: 'loading' });
    loadPublicConfig().then(
      (config) => setState({ status: 'ready', config }),
      (error: unknown) => setState({ status: 'failed', error }),
    );
  }, []);

  useEffect(load, [load]);

  if (state.status === 'ready') return <PublicConfigContext value={state.config}>{children}</PublicConfigContext>;
  if (state.status === 'loading') return <FullPageLoader isFullScreen label="Starting…" />;
  return (
    <Box role="alert" sx={{ minHeight: '100vh', display: 'grid', placeItems: 'center', p: 3, textAlign: 'center' }}>
      <Box sx={{ maxWidth: 420 }}>
        <Typography variant="h2" component="h1" sx={{ fontSize: '1.5rem', mb: 1 }}>
          The portal is not reachable
        </Typography>
        <Typography color="text.secondary" sx={{ mb: 3 }}>
          {errorMessages(state.error)[0] ?? ErrorMessages.networkError}
        </Typography>
        <Button variant="contained" onClick={load}>
          Try again
        </Button>
      </Box>
    </Box>
  );
}
