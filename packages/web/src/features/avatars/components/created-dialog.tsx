import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import Dialog from '@mui/material/Dialog';
import DialogActions from '@mui/material/DialogActions';
import DialogContent from '@mui/material/DialogContent';
import DialogTitle from '@mui/material/DialogTitle';
import Typography from '@mui/material/Typography';
import CheckCircleOutlineIcon from '@mui/icons-material/CheckCircleOutlineOutlined';
import { AvatarMessages } from '@persona/contract';
import type { TAvatar } from '@persona/contract';

/** After a create: the avatar starts in echo-back mode; select it and click EDIT to go on. */
export function CreatedDialog({ avatar, onClose }: { avatar: TAvatar | null; onClose: () => void }) {
  return (
    <Dialog open={avatar !== null} onClose={onClose} maxWidth="xs" fullWidth aria-labelledby="created-title">
      <DialogTitle id="created-title" sx={{ fontWeight: 700, display: 'flex', alignItems: 'center', gap: 1 }}>
        <CheckCircleOutlineIcon color="success" aria-hidden />
        Avatar created
      </DialogTitle>
      <DialogContent>
        <Typography sx={{ fontWeight: 600 }}>{AvatarMessages.created}</Typography>
        <Box sx={{ mt: 1 }}>
          <Typography color="text.secondary">
            {avatar?.name} starts in echo-back mode: it repeats what it hears. To set up its brain, environment and more, select the avatar in the
            left panel and click EDIT.
          </Typography>
        </Box>
      </DialogContent>
      <DialogActions sx={{ px: 3, pb: 2 }}>
        <Button variant="contained" onClick={onClose}>
          OK
        </Button>
      </DialogActions>
    </Dialog>
  );
}
