import { NavLink } from 'react-router';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import Divider from '@mui/material/Divider';
import Drawer from '@mui/material/Drawer';
import IconButton from '@mui/material/IconButton';
import Typography from '@mui/material/Typography';
import CloseIcon from '@mui/icons-material/Close';
import OpenInNewIcon from '@mui/icons-material/OpenInNew';
import type { TPublicConfig } from '@persona/contract';
import { LogoMark } from '../../components/logo-mark';
import type { MenuEntry } from './menu';

export interface NavDrawerProps {
  open: boolean;
  onClose: () => void;
  menu: readonly MenuEntry[];
  config: TPublicConfig;
  userName: string;
}

const itemSx = {
  justifyContent: 'flex-start',
  px: 2,
  py: 1.25,
  color: 'text.primary',
  fontSize: '0.975rem',
  borderRadius: 2,
  '&.active': { color: 'primary.main', bgcolor: 'rgba(79, 70, 229, 0.08)' },
} as const;

/** The menu as a right-hand drawer, below the 760 px breakpoint. */
export function NavDrawer({ open, onClose, menu, config, userName }: NavDrawerProps) {
  return (
    <Drawer anchor="right" open={open} onClose={onClose} slotProps={{ paper: { sx: { width: 300, maxWidth: '85vw' } } }}>
      <Box sx={{ display: 'flex', alignItems: 'center', gap: 1.25, px: 2, py: 1.5 }}>
        <LogoMark size={28} />
        <Typography sx={{ fontWeight: 750, flex: 1 }}>{config.productName}</Typography>
        <IconButton aria-label="Close menu" onClick={onClose} edge="end">
          <CloseIcon />
        </IconButton>
      </Box>
      {userName ? (
        <Typography variant="body2" color="text.secondary" sx={{ px: 2, pb: 1.5 }}>
          Signed in as <strong>{userName}</strong>
        </Typography>
      ) : null}
      <Divider />
      <Box component="nav" aria-label="Menu" sx={{ display: 'flex', flexDirection: 'column', gap: 0.5, p: 1 }}>
        {menu.map((entry) =>
          entry.kind === 'external' ? (
            <Button
              key={entry.label}
              component="a"
              href={entry.href(config)}
              target="_blank"
              rel="noopener noreferrer"
              onClick={onClose}
              sx={itemSx}
              endIcon={<OpenInNewIcon sx={{ fontSize: '1rem !important' }} />}
            >
              {entry.label}
            </Button>
          ) : (
            <Button key={entry.label} component={NavLink} to={entry.to} onClick={onClose} sx={itemSx}>
              {entry.label}
            </Button>
          ),
        )}
      </Box>
    </Drawer>
  );
}
