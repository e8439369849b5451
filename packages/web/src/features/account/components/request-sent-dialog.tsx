import { useEffect } from 'react';
import Button from '@mui/material/Button';
import Dialog from '@mui/material/Dialog';
import DialogActions from '@mui/material/DialogActions';
import DialogContent from '@mui/material/DialogContent';
import DialogTitle from '@mui/material/DialogTitle';
import Typography from '@mui/material/Typography';
import MarkEmailReadOutlinedIcon from '@mui/icons-material/MarkEmailReadOutlined';
import { AccountMessages, Limits } from '@persona/contract';
import { IconBadge } from '../../../components/icon-badge';

export interface RequestSentDialogProps {
  /** The requested plan's name; null hides the dialog. */
  planName: string | null;
  onClose: () => void;
}

/** 'Request Sent', closing by itself after 3000 ms (spec section 9). */
export function RequestSentDialog({ planName, onClose }: RequestSentDialogProps) {
  const open = planName !== null;
  useEffect(() => {
    if (!open) return;
    const timer = setTimeout(onClose, Limits.successDialogMs);
    return () => clearTimeout(timer);
  }, [open, onClose]);
  return (
    <Dialog open={open} onClose={onClose} maxWidth="xs" fullWidth aria-labelledby="request-sent-title">
      <DialogContent sx={{ display: 'flex', flexDirection: 'column', alignItems: 'center', textAlign: 'center', gap: 1.5, pt: 4 }}>
        <IconBadge tone="success">
          <MarkEmailReadOutlinedIcon />
        </IconBadge>
        <DialogTitle id="request-sent-title" sx={{ p: 0, fontWeight: 700 }}>
          {AccountMessages.planRequestSent}
        </DialogTitle>
        <Typography color="text.secondary">
          Your request for the {planName} plan was sent. An administrator will confirm it, and you will get an e-mail when your plan changes.
        </Typography>
      </DialogContent>
      <DialogActions sx={{ justifyContent: 'center', pb: 3 }}>
        <Button variant="contained" onClick={onClose}>
          OK
        </Button>
      </DialogActions>
    </Dialog>
  );
}
