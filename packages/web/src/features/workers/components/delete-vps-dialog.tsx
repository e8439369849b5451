import { useEffect } from 'react';
import Alert from '@mui/material/Alert';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import Dialog from '@mui/material/Dialog';
import DialogActions from '@mui/material/DialogActions';
import DialogContent from '@mui/material/DialogContent';
import DialogContentText from '@mui/material/DialogContentText';
import DialogTitle from '@mui/material/DialogTitle';
import Typography from '@mui/material/Typography';
import CheckCircleOutlineIcon from '@mui/icons-material/CheckCircleOutlined';
import { Limits, type TVps } from '@persona/contract';
import { deleteVpsErrors, useDeleteVps } from '../api/delete-vps';

/** Delete asks for confirmation; success closes after 3 s (spec sections 2 and 4). */
export function DeleteVpsDialog({ vps, onClose }: { vps: TVps | null; onClose: () => void }) {
  return (
    <Dialog open={vps !== null} onClose={onClose} maxWidth="xs" fullWidth aria-labelledby="delete-vps-title">
      {vps ? <DeleteVpsBody vps={vps} onClose={onClose} /> : null}
    </Dialog>
  );
}

function DeleteVpsBody({ vps, onClose }: { vps: TVps; onClose: () => void }) {
  const deletion = useDeleteVps();
  useEffect(() => {
    if (!deletion.isSuccess) return;
    const timer = setTimeout(onClose, Limits.successDialogMs);
    return () => clearTimeout(timer);
  }, [deletion.isSuccess, onClose]);

  if (deletion.isSuccess) {
    return (
      <>
        <DialogTitle id="delete-vps-title" sx={{ fontWeight: 700 }}>
          VPS deleted
        </DialogTitle>
        <DialogContent>
          <Box role="status" sx={{ display: 'flex', gap: 1.5, alignItems: 'center' }}>
            <CheckCircleOutlineIcon color="success" />
            <Typography>
              {vps.name} (ID {vps.id}) was disconnected and removed from the list.
            </Typography>
          </Box>
        </DialogContent>
        <DialogActions sx={{ px: 3, pb: 2 }}>
          <Button onClick={onClose}>Close</Button>
        </DialogActions>
      </>
    );
  }

  return (
    <>
      <DialogTitle id="delete-vps-title" sx={{ fontWeight: 700 }}>
        Delete VPS?
      </DialogTitle>
      <DialogContent>
        <DialogContentText>
          Delete <strong>{vps.name}</strong> (ID {vps.id})? The server is disconnected, its avatar sessions end and its worker process stops. Start the worker again to bring it back.
        </DialogContentText>
        {deletion.isError ? (
          <Alert severity="error" sx={{ mt: 2 }}>
            {deleteVpsErrors(deletion.error).map((message) => (
              <div key={message}>{message}</div>
            ))}
          </Alert>
        ) : null}
      </DialogContent>
      <DialogActions sx={{ px: 3, pb: 2 }}>
        <Button color="inherit" onClick={onClose} disabled={deletion.isPending}>
          Cancel
        </Button>
        <Button color="error" variant="contained" onClick={() => deletion.mutate(vps.id)} loading={deletion.isPending}>
          Delete
        </Button>
      </DialogActions>
    </>
  );
}
