import { useCallback, useState } from 'react';
import Cropper, { type Area } from 'react-easy-crop';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import Dialog from '@mui/material/Dialog';
import DialogActions from '@mui/material/DialogActions';
import DialogContent from '@mui/material/DialogContent';
import DialogTitle from '@mui/material/DialogTitle';
import Slider from '@mui/material/Slider';
import Typography from '@mui/material/Typography';
import { AvatarLimits } from '@persona/contract';
import { showToast } from '../../../lib/toast';
import { ERROR_TOAST_MS } from '../lib/editor-model';
import { cropToJpeg } from '../lib/photo';

export interface PhotoCropDialogProps {
  /** Object URL of the chosen image. */
  source: string | null;
  onCancel: () => void;
  /** The cropped photo: a JPEG data URL, at most 800 px a side. */
  onCropped: (dataUrl: string) => void;
}

/** The avatar photo crop dialog (square, zoomable). */
export function PhotoCropDialog({ source, onCancel, onCropped }: PhotoCropDialogProps) {
  const [crop, setCrop] = useState({ x: 0, y: 0 });
  const [zoom, setZoom] = useState(1);
  const [area, setArea] = useState<Area | null>(null);
  const [isBusy, setIsBusy] = useState(false);
  const onCropComplete = useCallback((_area: Area, pixels: Area) => setArea(pixels), []);

  const apply = async () => {
    if (!source || !area) return;
    setIsBusy(true);
    try {
      onCropped(await cropToJpeg(source, area, AvatarLimits.avatarPhotoMaxPx));
    } catch {
      void showToast('Failed to process given file.', 'error', { autoHideDurationMs: ERROR_TOAST_MS });
    } finally {
      setIsBusy(false);
    }
  };

  return (
    <Dialog open={source !== null} onClose={onCancel} maxWidth="xs" fullWidth aria-labelledby="crop-title">
      <DialogTitle id="crop-title" sx={{ fontWeight: 700 }}>
        Avatar Photo
      </DialogTitle>
      <DialogContent>
        <Box sx={{ position: 'relative', height: 300, bgcolor: '#0f172a', borderRadius: 2, overflow: 'hidden' }}>
          {source ? (
            <Cropper image={source} crop={crop} zoom={zoom} aspect={1} cropShape="round" showGrid={false} onCropChange={setCrop} onZoomChange={setZoom} onCropComplete={onCropComplete} />
          ) : null}
        </Box>
        <Box sx={{ display: 'flex', alignItems: 'center', gap: 2, mt: 2 }}>
          <Typography variant="body2" color="text.secondary">
            Zoom
          </Typography>
          <Slider value={zoom} min={1} max={3} step={0.05} onChange={(_e, v) => setZoom(v as number)} aria-label="Zoom" />
        </Box>
        <Typography variant="caption" color="text.secondary">
          Saved as a JPEG of at most {AvatarLimits.avatarPhotoMaxPx} × {AvatarLimits.avatarPhotoMaxPx} px when you save the avatar.
        </Typography>
      </DialogContent>
      <DialogActions sx={{ px: 3, pb: 2 }}>
        <Button onClick={onCancel} color="inherit">
          Cancel
        </Button>
        <Button variant="contained" onClick={() => void apply()} disabled={!area || isBusy}>
          Use photo
        </Button>
      </DialogActions>
    </Dialog>
  );
}
