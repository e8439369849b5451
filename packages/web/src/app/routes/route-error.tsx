import { Component, type ErrorInfo, type ReactNode } from 'react';
import { Outlet, useLocation } from 'react-router';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import Paper from '@mui/material/Paper';
import Typography from '@mui/material/Typography';
import { ErrorMessages } from '@persona/contract';

/** A new deployment replaced the hashed page files this tab was built against. */
export function isStaleBundle(error: unknown): boolean {
  return (
    error instanceof TypeError &&
    /dynamically imported module|Importing a module script failed|Failed to fetch/i.test(error.message)
  );
}

/** Shown when a page fails to load or render. */
export function RouteError({ error }: { error: unknown }) {
  const isStale = isStaleBundle(error);
  const title = isStale ? 'A new version is available' : 'Something went wrong';
  const message = isStale ? 'The portal was updated while this page was open. Reload to continue.' : ErrorMessages.fallback;
  return (
    <Box role="alert" sx={{ minHeight: '100vh', display: 'grid', placeItems: 'center', p: 2, bgcolor: 'background.default' }}>
      <Paper variant="outlined" sx={{ p: 4, maxWidth: 420, textAlign: 'center' }}>
        <Typography variant="h2" component="h1" sx={{ fontSize: '1.5rem', mb: 1 }}>
          {title}
        </Typography>
        <Typography color="text.secondary" sx={{ mb: 3 }}>
          {message}
        </Typography>
        <Button variant="contained" onClick={() => window.location.reload()}>
          Reload
        </Button>
      </Paper>
    </Box>
  );
}

interface BoundaryProps {
  children: ReactNode;
  /** Changing it (the location) clears a caught error. */
  resetKey: string;
}

class ErrorBoundary extends Component<BoundaryProps, { error: unknown; resetKey: string }> {
  override state = { error: null as unknown, resetKey: this.props.resetKey };

  static getDerivedStateFromError(error: unknown) {
    return { error };
  }

  static getDerivedStateFromProps(props: BoundaryProps, state: { error: unknown; resetKey: string }) {
    return props.resetKey === state.resetKey ? null : { error: null, resetKey: props.resetKey };
  }

  override componentDidCatch(error: unknown, info: ErrorInfo) {
    if (!isStaleBundle(error)) console.error('[route]', error, info.componentStack);
  }

  override render() {
    return this.state.error ? <RouteError error={this.state.error} /> : this.props.children;
  }
}

/** Catches what the pages throw; navigating elsewhere recovers. */
export function RouteErrorBoundary() {
  const location = useLocation();
  return (
    <ErrorBoundary resetKey={location.pathname}>
      <Outlet />
    </ErrorBoundary>
  );
}
