import { useState } from 'react';
import Alert from '@mui/material/Alert';
import Button from '@mui/material/Button';
import Dialog from '@mui/material/Dialog';
import DialogActions from '@mui/material/DialogActions';
import DialogContent from '@mui/material/DialogContent';
import DialogContentText from '@mui/material/DialogContentText';
import DialogTitle from '@mui/material/DialogTitle';
import TextField from '@mui/material/TextField';

export const REASON_MAX = 500;

export interface DeclineDialogProps {
  open: boolean;
  title: string;
  text: string;
  isBusy: boolean;
  error: string | null;
  onDecline: (reason: string) => void;
  onClose: () => void;
}

/** Decline with an optional reason that is e-mailed to the customer. */
export function DeclineDialog(props: DeclineDialogProps) {
  return (
    <Dialog open={props.open} onClose={props.isBusy ? undefined : props.onClose} maxWidth="sm" fullWidth aria-labelledby="decline-title">
      {props.open ? <DeclineBody {...props} /> : null}
    </Dialog>
  );
}

function DeclineBody({ title, text, isBusy, error, onDecline, onClose }: DeclineDialogProps) {
  const [reason, setReason] = useState('');
  return (
    <>
      <DialogTitle id="decline-title" sx={{ fontWeight: 700 }}>
        {title}
      </DialogTitle>
      <DialogContent>
        <DialogContentText sx={{ mb: 2 }}>{text}</DialogContentText>
        <TextField
          label="Reason (optional)"
          value={reason}
          onChange={(e) => setReason(e.target.value)}
          multiline
          minRows={3}
          fullWidth
          autoFocus
          helperText="Sent to the customer with the decision."
          slotProps={{ htmlInput: { maxLength: REASON_MAX } }}
        />
        {error ? (
          <Alert severity="error" sx={{ mt: 2 }}>
            {error}
          </Alert>
        ) : null}
      </DialogContent>
      <DialogActions sx={{ px: 3, pb: 2 }}>
        <Button color="inherit" onClick={onClose} disabled={isBusy}>
          Cancel
        </Button>
        <Button color="error" variant="contained" onClick={() => onDecline(reason.trim())} loading={isBusy}>
          Decline
        </Button>
      </DialogActions>
    </>
  );
}
