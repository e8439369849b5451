import { Link as RouterLink } from 'react-router';
import Button from '@mui/material/Button';
import { paths } from '../../../lib/paths';
import { TextLink } from '../../../components/text-link';

/** The 'Back to Sign In' button of the auth pages. */
export function BackToSignInButton({ variant = 'contained' }: { variant?: 'contained' | 'outlined' | 'text' }) {
  return (
    <Button component={RouterLink} to={paths.login} variant={variant} size="large" fullWidth>
      Back to Sign In
    </Button>
  );
}

export function BackToSignInLink() {
  return (
    <TextLink to={paths.login}>
      Back to Sign In
    </TextLink>
  );
}
