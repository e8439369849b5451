import type { ReactNode } from 'react';
import Box from '@mui/material/Box';
import Paper from '@mui/material/Paper';
import Typography from '@mui/material/Typography';

export interface AuthCardProps {
  title: ReactNode;
  subtitle?: ReactNode;
  /** An icon or illustration shown above the title. */
  icon?: ReactNode;
  children?: ReactNode;
  footer?: ReactNode;
}

/** The centred card of the signed-out pages (sign in, register, password reset, ...). */
export function AuthCard({ title, subtitle, icon, children, footer }: AuthCardProps) {
  return (
    <Box
      sx={{
        flex: 1,
        display: 'flex',
        alignItems: { xs: 'flex-start', sm: 'center' },
        justifyContent: 'center',
        px: 2,
        py: { xs: 3, sm: 6 },
      }}
    >
      <Box sx={{ width: '100%', maxWidth: 420 }}>
        <Paper
          variant="outlined"
          sx={{
            p: { xs: 3, sm: 4 },
            boxShadow: '0 1px 2px rgba(16, 24, 40, 0.04), 0 12px 32px -12px rgba(16, 24, 40, 0.12)',
          }}
        >
          {icon ? <Box sx={{ display: 'flex', justifyContent: 'center', mb: 2 }}>{icon}</Box> : null}
          <Typography variant="h2" component="h1" sx={{ textAlign: 'center', fontSize: '1.5rem' }}>
            {title}
          </Typography>
          {subtitle ? (
            <Typography variant="body2" color="text.secondary" sx={{ textAlign: 'center', mt: 1 }}>
              {subtitle}
            </Typography>
          ) : null}
          <Box sx={{ mt: 3 }}>{children}</Box>
        </Paper>
        {footer ? (
          <Typography variant="body2" color="text.secondary" component="div" sx={{ textAlign: 'center', mt: 2.5 }}>
            {footer}
          </Typography>
        ) : null}
      </Box>
    </Box>
  );
}
