import type { ReactNode } from 'react';
import Button from '@mui/material/Button';
import Dialog from '@mui/material/Dialog';
import DialogActions from '@mui/material/DialogActions';
import DialogContent from '@mui/material/DialogContent';
import DialogContentText from '@mui/material/DialogContentText';
import DialogTitle from '@mui/material/DialogTitle';

export interface ConfirmDialogProps {
  open: boolean;
  title: string;
  children: ReactNode;
  confirmLabel?: string;
  cancelLabel?: string;
  /** 'error' for destructive actions. */
  tone?: 'primary' | 'error';
  isBusy?: boolean;
  onConfirm: () => void;
  onCancel: () => void;
  /** Escape / backdrop click; defaults to onCancel (set it when Cancel is an action, like Discard). */
  onDismiss?: () => void;
  /** Extra content under the text (errors, progress). */
  footer?: ReactNode;
}

/** A small yes/no dialog with the question as its text. */
export function ConfirmDialog({
  open,
  title,
  children,
  confirmLabel = 'Yes',
  cancelLabel = 'No',
  tone = 'primary',
  isBusy = false,
  onConfirm,
  onCancel,
  onDismiss,
  footer,
}: ConfirmDialogProps) {
  return (
    <Dialog open={open} onClose={isBusy ? undefined : (onDismiss ?? onCancel)} maxWidth="xs" fullWidth aria-labelledby="confirm-dialog-title">
      <DialogTitle id="confirm-dialog-title" sx={{ fontWeight: 700 }}>
        {title}
      </DialogTitle>
      <DialogContent>
        <DialogContentText component="div">{children}</DialogContentText>
        {footer}
      </DialogContent>
      <DialogActions sx={{ px: 3, pb: 2 }}>
        <Button onClick={onCancel} disabled={isBusy} color="inherit">
          {cancelLabel}
        </Button>
        <Button onClick={onConfirm} disabled={isBusy} variant="contained" color={tone}>
          {confirmLabel}
        </Button>
      </DialogActions>
    </Dialog>
  );
}
