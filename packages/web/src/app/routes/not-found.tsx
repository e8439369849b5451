import { Link as RouterLink } from 'react-router';
import Button from '@mui/material/Button';
import Typography from '@mui/material/Typography';
import { AuthCard } from '../../components/auth-card';
import { paths } from '../../lib/paths';
import { useDocumentTitle } from '../../lib/use-document-title';

export function NotFoundRoute() {
  useDocumentTitle('Page not found');
  return (
    <AuthCard
      icon={
        <Typography component="span" sx={{ fontSize: '3rem', fontWeight: 800, color: 'primary.main', lineHeight: 1 }}>
          404
        </Typography>
      }
      title="Page not found"
      subtitle="The page you are looking for does not exist or has moved."
    >
      <Button component={RouterLink} to={paths.home} variant="contained" size="large" fullWidth>
        Go to the portal
      </Button>
    </AuthCard>
  );
}
