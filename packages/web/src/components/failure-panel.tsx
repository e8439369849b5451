import Box from '@mui/material/Box';
import Typography from '@mui/material/Typography';
import ErrorOutlinedIcon from '@mui/icons-material/ErrorOutlined';

export interface FailurePanelProps {
  title: string;
  errors: readonly string[];
}

/** A red panel with a title and the list of errors the server (or the client) gave. */
export function FailurePanel({ title, errors }: FailurePanelProps) {
  return (
    <Box
      role="alert"
      sx={{
        display: 'flex',
        gap: 1.5,
        p: 1.75,
        borderRadius: 2.5,
        border: 1,
        borderColor: 'rgba(220, 38, 38, 0.45)',
        bgcolor: 'rgba(220, 38, 38, 0.05)',
        color: '#7f1d1d',
      }}
    >
      <ErrorOutlinedIcon sx={{ color: 'error.main', fontSize: 22, mt: '1px' }} aria-hidden />
      <Box sx={{ minWidth: 0 }}>
        <Typography component="p" sx={{ fontWeight: 700, color: 'error.main', mb: 0.25 }}>
          {title}
        </Typography>
        {errors.length === 1 ? (
          <Typography variant="body2" component="p" sx={{ m: 0 }}>
            {errors[0]}
          </Typography>
        ) : (
          <Typography variant="body2" component="ul" sx={{ m: 0, pl: 2.5 }}>
            {errors.map((error) => (
              <li key={error}>{error}</li>
            ))}
          </Typography>
        )}
      </Box>
    </Box>
  );
}
