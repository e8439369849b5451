import Alert from '@mui/material/Alert';
import Button from '@mui/material/Button';
import { FunctionMessages } from '@persona/contract';
import { errorMessages } from '../../lib/api-client';

export interface LoadFailureProps {
  /** What could not be loaded, e.g. 'functions'. */
  name: string;
  error: unknown;
  onRetry: () => void;
}

/** 'Oops! Something went wrong. We couldn't load the {name}.' with the reason and a retry. */
export function LoadFailure({ name, error, onRetry }: LoadFailureProps) {
  const reason = errorMessages(error)[0];
  return (
    <Alert
      severity="error"
      variant="outlined"
      action={
        <Button color="inherit" size="small" onClick={onRetry}>
          Retry
        </Button>
      }
    >
      {FunctionMessages.loadFailed(name)}
      {reason ? <div style={{ fontSize: 13, opacity: 0.85, marginTop: 4 }}>{reason}</div> : null}
    </Alert>
  );
}
