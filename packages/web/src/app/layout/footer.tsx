import Box from '@mui/material/Box';
import Typography from '@mui/material/Typography';
import { usePublicConfig } from '../../lib/config';
import { paths } from '../../lib/paths';
import { TextLink } from '../../components/text-link';

export function Footer() {
  const config = usePublicConfig();
  const year = new Date().getFullYear();
  return (
    <Box
      component="footer"
      sx={{
        borderTop: 1,
        borderColor: 'divider',
        bgcolor: 'background.paper',
        px: { xs: 2, sm: 3 },
        py: 2,
        display: 'flex',
        flexWrap: 'wrap',
        gap: 1,
        alignItems: 'center',
        justifyContent: 'space-between',
      }}
    >
      <Typography variant="body2" color="text.secondary">
        © {year} {config.companyName}
      </Typography>
      <TextLink to={paths.docs} tone="muted">
        Documentation
      </TextLink>
    </Box>
  );
}
