import type { ReactNode } from 'react';
import Box from '@mui/material/Box';

/** Children stacked vertically with a gap (theme spacing units). */
export function Column({ children, gap = 2.25, center = false }: { children: ReactNode; gap?: number; center?: boolean }) {
  return (
    <Box sx={{ display: 'flex', flexDirection: 'column', gap, alignItems: center ? 'center' : 'stretch' }}>{children}</Box>
  );
}
