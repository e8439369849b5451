import Box from '@mui/material/Box';
import CircularProgress from '@mui/material/CircularProgress';
import Typography from '@mui/material/Typography';

export interface FullPageLoaderProps {
  label?: string;
  /** Fills the viewport (start-up) instead of the content area (page loading). */
  isFullScreen?: boolean;
}

export function FullPageLoader({ label = 'Loading…', isFullScreen = false }: FullPageLoaderProps) {
  return (
    <Box
      role="status"
      aria-live="polite"
      sx={{
        minHeight: isFullScreen ? '100vh' : '40vh',
        display: 'flex',
        flexDirection: 'column',
        alignItems: 'center',
        justifyContent: 'center',
        gap: 2,
        color: 'text.secondary',
      }}
    >
      <CircularProgress size={36} aria-hidden />
      <Typography variant="body2">{label}</Typography>
    </Box>
  );
}
