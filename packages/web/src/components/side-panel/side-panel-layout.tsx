import type { ReactNode } from 'react';
import Box from '@mui/material/Box';

export interface SidePanelLayoutProps {
  /** The card list (SidePanel). */
  panel: ReactNode;
  /** The editor: create mode or the selected item. */
  children: ReactNode;
  /** The right-hand info panel. */
  info: ReactNode;
}

/**
 * Side panel | editor | info panel on wide screens; stacked (list, editor, help) on narrow ones.
 */
export function SidePanelLayout({ panel, children, info }: SidePanelLayoutProps) {
  return (
    <Box
      sx={{
        display: 'grid',
        gap: 2.5,
        alignItems: 'start',
        gridTemplateColumns: { xs: 'minmax(0, 1fr)', md: '350px minmax(0, 1fr)', lg: '350px minmax(0, 1fr) 280px' },
      }}
    >
      <Box sx={{ minWidth: 0 }}>{panel}</Box>
      <Box sx={{ minWidth: 0 }}>{children}</Box>
      <Box sx={{ minWidth: 0, gridColumn: { md: '2', lg: 'auto' }, position: { lg: 'sticky' }, top: { lg: 88 } }}>{info}</Box>
    </Box>
  );
}
