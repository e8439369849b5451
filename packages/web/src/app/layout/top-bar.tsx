import { Suspense, lazy, useEffect, useState } from 'react';
import { Link as RouterLink, NavLink } from 'react-router';
import AppBar from '@mui/material/AppBar';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import IconButton from '@mui/material/IconButton';
import Toolbar from '@mui/material/Toolbar';
import Typography from '@mui/material/Typography';
import MenuIcon from '@mui/icons-material/Menu';
import OpenInNewIcon from '@mui/icons-material/OpenInNew';
import type { TPublicConfig } from '@persona/contract';
import { LogoMark } from '../../components/logo-mark';
import { useSession } from '../../lib/auth-store';
import { usePublicConfig } from '../../lib/config';
import { paths } from '../../lib/paths';
import { menuFor, type MenuEntry } from './menu';

const loadNavDrawer = () => import('./nav-drawer');
const NavDrawer = lazy(() => loadNavDrawer().then((module) => ({ default: module.NavDrawer })));

const navButtonSx = {
  color: 'text.secondary',
  fontWeight: 600,
  // From 760 px to 1200 px the eight entries (the spec's seven and Conversations) must fit beside
  // the logo: smaller and tighter there, the product name shown from 1200 px (measured: 760 and 960 px).
  fontSize: { xs: '0.875rem', sm: '0.75rem', md: '0.8rem', lg: '0.875rem' },
  px: { xs: 1.25, sm: 0.5, md: 0.75, lg: 1.25 },
  minWidth: 0,
  whiteSpace: 'nowrap',
  position: 'relative',
  '&:hover': { color: 'text.primary', bgcolor: 'action.hover' },
  '&.active': { color: 'primary.main', bgcolor: 'rgba(79, 70, 229, 0.08)' },
} as const;

export function MenuButton({ entry, config }: { entry: MenuEntry; config: TPublicConfig }) {
  if (entry.kind === 'external') {
    return (
      <Button
        component="a"
        href={entry.href(config)}
        target="_blank"
        rel="noopener noreferrer"
        endIcon={<OpenInNewIcon sx={{ fontSize: '0.9rem !important', display: { sm: 'none', lg: 'inline-block' } }} />}
        sx={{ ...navButtonSx, '& .MuiButton-endIcon': { ml: { sm: 0, lg: 0.5 }, mr: { sm: 0, lg: -0.5 } } }}
      >
        {entry.label}
        <Box component="span" sx={visuallyHidden}>
          {' '}
          (opens in a new tab)
        </Box>
      </Button>
    );
  }
  return (
    <Button component={NavLink} to={entry.to} sx={navButtonSx}>
      {entry.label}
    </Button>
  );
}

export const visuallyHidden = {
  position: 'absolute',
  width: 1,
  height: 1,
  overflow: 'hidden',
  clip: 'rect(0 0 0 0)',
  whiteSpace: 'nowrap',
} as const;

export function TopBar() {
  const session = useSession();
  const config = usePublicConfig();
  const [isDrawerOpen, setIsDrawerOpen] = useState(false);
  const [hasDrawer, setHasDrawer] = useState(false);
  const menu = menuFor(session);
  const isSignedIn = session !== null;

  // The drawer (and MUI's modal machinery) is fetched once somebody is signed in, not on the sign-in page.
  useEffect(() => {
    if (isSignedIn) void loadNavDrawer();
  }, [isSignedIn]);

  const openDrawer = () => {
    setHasDrawer(true);
    setIsDrawerOpen(true);
  };

  return (
    <AppBar position="sticky" sx={{ bgcolor: 'background.paper', borderBottom: 1, borderColor: 'divider' }}>
      <Toolbar sx={{ gap: 1, minHeight: { xs: 60, sm: 64 }, px: { xs: 2, sm: 1.5, md: 3 } }}>
        <Box
          component={RouterLink}
          to={paths.home}
          aria-label={`${config.productName} home`}
          sx={{ display: 'flex', alignItems: 'center', gap: 1.25, color: 'text.primary', textDecoration: 'none', mr: 'auto', minWidth: 0 }}
        >
          <LogoMark size={32} />
          <Typography
            component="span"
            sx={{ fontWeight: 750, fontSize: '1.0625rem', letterSpacing: '-0.01em', whiteSpace: 'nowrap', display: { sm: 'none', lg: 'inline' } }}
          >
            {config.productName}
          </Typography>
        </Box>

        {session ? (
          <>
            <Box component="nav" aria-label="Main" sx={{ display: { xs: 'none', sm: 'flex' }, alignItems: 'center', gap: { sm: 0, md: 0.25 } }}>
              {menu.map((entry) => (
                <MenuButton key={entry.label} entry={entry} config={config} />
              ))}
            </Box>
            <IconButton
              aria-label="Open menu"
              aria-haspopup="dialog"
              aria-expanded={isDrawerOpen}
              onClick={openDrawer}
              edge="end"
              sx={{ display: { xs: 'inline-flex', sm: 'none' } }}
            >
              <MenuIcon />
            </IconButton>
            {hasDrawer ? (
              <Suspense fallback={null}>
                <NavDrawer
                  open={isDrawerOpen}
                  onClose={() => setIsDrawerOpen(false)}
                  menu={menu}
                  config={config}
                  userName={session.userName}
                />
              </Suspense>
            ) : null}
          </>
        ) : (
          <Box component="nav" aria-label="Main" sx={{ display: 'flex', alignItems: 'center', gap: 1 }}>
            <Button component={NavLink} to={paths.docs} sx={navButtonSx}>
              Docs
            </Button>
            <Button component={NavLink} to={paths.login} variant="contained" size="small" sx={{ px: 2 }}>
              Sign In
            </Button>
          </Box>
        )}
      </Toolbar>
    </AppBar>
  );
}
