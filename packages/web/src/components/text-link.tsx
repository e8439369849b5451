import type { ReactNode } from 'react';
import { Link as RouterLink } from 'react-router';
import Typography from '@mui/material/Typography';

export interface TextLinkProps {
  to: string;
  children: ReactNode;
  variant?: 'body1' | 'body2';
  tone?: 'primary' | 'muted';
}

/** An in-app text link (a light stand-in for MUI Link, which the sign-in page does not need). */
export function TextLink({ to, children, variant = 'body2', tone = 'primary' }: TextLinkProps) {
  return (
    <Typography
      component={RouterLink}
      to={to}
      variant={variant}
      sx={{
        color: tone === 'primary' ? 'primary.main' : 'text.secondary',
        fontWeight: tone === 'primary' ? 600 : 400,
        textDecoration: 'none',
        '&:hover': { textDecoration: 'underline' },
        '&:focus-visible': { outline: '2px solid', outlineColor: 'primary.main', outlineOffset: 2, borderRadius: 0.5 },
      }}
    >
      {children}
    </Typography>
  );
}
