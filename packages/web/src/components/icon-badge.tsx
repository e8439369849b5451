import type { ReactNode } from 'react';
import Box from '@mui/material/Box';

export interface IconBadgeProps {
  children: ReactNode;
  tone?: 'primary' | 'success' | 'error' | 'neutral';
}

const tones = {
  primary: { bg: 'rgba(79, 70, 229, 0.1)', fg: 'primary.main' },
  success: { bg: 'rgba(22, 163, 74, 0.12)', fg: 'success.main' },
  error: { bg: 'rgba(220, 38, 38, 0.1)', fg: 'error.main' },
  neutral: { bg: 'rgba(75, 85, 99, 0.1)', fg: 'text.secondary' },
} as const;

/** A round tinted badge around an icon, used at the top of auth cards. */
export function IconBadge({ children, tone = 'primary' }: IconBadgeProps) {
  const colors = tones[tone];
  return (
    <Box
      sx={{
        width: 56,
        height: 56,
        borderRadius: '50%',
        display: 'grid',
        placeItems: 'center',
        bgcolor: colors.bg,
        color: colors.fg,
        '& svg': { fontSize: 30 },
      }}
    >
      {children}
    </Box>
  );
}
