import { Suspense } from 'react';
import { Outlet } from 'react-router';
import Box from '@mui/material/Box';
import { FullPageLoader } from '../../components/full-page-loader';
import { useSession } from '../../lib/auth-store';
import { Footer } from './footer';
import { TopBar } from './top-bar';

/** Top bar, page, footer. */
export function AppShell() {
  const session = useSession();
  return (
    <Box sx={{ minHeight: '100vh', display: 'flex', flexDirection: 'column' }}>
      <Box
        component="a"
        href="#main"
        sx={{
          position: 'absolute',
          left: 8,
          top: -48,
          zIndex: 2000,
          bgcolor: 'primary.main',
          color: 'primary.contrastText',
          px: 2,
          py: 1,
          borderRadius: 1,
          '&:focus': { top: 8 },
        }}
      >
        Skip to content
      </Box>
      <TopBar />
      {session?.adminProxy ? (
        <Box
          role="status"
          sx={{ bgcolor: 'warning.main', color: '#fff', px: 2, py: 0.75, textAlign: 'center', fontSize: '0.875rem', fontWeight: 600 }}
        >
          You are signed in as {session.userName || 'this user'} on behalf of an administrator.
        </Box>
      ) : null}
      <Box component="main" id="main" tabIndex={-1} sx={{ flex: 1, display: 'flex', flexDirection: 'column', outline: 'none' }}>
        <Suspense fallback={<FullPageLoader />}>
          <Outlet />
        </Suspense>
      </Box>
      <Footer />
    </Box>
  );
}

/** Pages embedded elsewhere (/chatWidget/*): no navbar, no footer. */
export function BareShell() {
  return (
    <Box component="main" sx={{ minHeight: '100vh', display: 'flex', flexDirection: 'column' }}>
      <Suspense fallback={<FullPageLoader isFullScreen />}>
        <Outlet />
      </Suspense>
    </Box>
  );
}
