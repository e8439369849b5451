import { useEffect, useState } from 'react';
import Alert from '@mui/material/Alert';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import Dialog from '@mui/material/Dialog';
import DialogActions from '@mui/material/DialogActions';
import DialogContent from '@mui/material/DialogContent';
import DialogContentText from '@mui/material/DialogContentText';
import DialogTitle from '@mui/material/DialogTitle';
import TextField from '@mui/material/TextField';
import Typography from '@mui/material/Typography';
import CloudUploadOutlinedIcon from '@mui/icons-material/CloudUploadOutlined';
import { ImageAvatarMessages, type TImageAvatarRequest, type TPhotoLandmarks } from '@persona/contract';
import { findFaceLandmarks } from '../lib/face-landmarks';

const ACCEPTED = ['image/png', 'image/jpeg'];
export const NOT_AN_IMAGE = 'Choose a JPG or PNG image.';

export interface CompleteImageDialogProps {
  request: TImageAvatarRequest | null;
  isBusy: boolean;
  error: string | null;
  onComplete: (input: { name: string; thumbnail: File; landmarks?: TPhotoLandmarks }) => void;
  onClose: () => void;
}

/** Complete: upload the finished avatar's image and name it; the customer finds it in their catalogue. */
export function CompleteImageDialog(props: CompleteImageDialogProps) {
  return (
    <Dialog open={props.request !== null} onClose={props.isBusy ? undefined : props.onClose} maxWidth="sm" fullWidth aria-labelledby="complete-title">
      {props.request ? <CompleteBody {...props} request={props.request} /> : null}
    </Dialog>
  );
}

function CompleteBody({ request, isBusy, error, onComplete, onClose }: CompleteImageDialogProps & { request: TImageAvatarRequest }) {
  const [name, setName] = useState(request.name);
  const [file, setFile] = useState<File | null>(null);
  const [preview, setPreview] = useState<string | null>(null);
  const [fieldErrors, setFieldErrors] = useState<{ name?: string; file?: string }>({});
  // The face is found once, here, so the avatar page can move the photo's mouth (a talking photo).
  const [face, setFace] = useState<{ state: 'idle' | 'searching' | 'none' | 'failed' } | { state: 'found'; landmarks: TPhotoLandmarks }>({ state: 'idle' });

  useEffect(() => {
    if (!file) return;
    const url = URL.createObjectURL(file);
    setPreview(url);
    return () => URL.revokeObjectURL(url);
  }, [file]);

  useEffect(() => {
    if (!file) return;
    let isCurrent = true;
    setFace({ state: 'searching' });
    findFaceLandmarks(file).then(
      (landmarks) => isCurrent && setFace(landmarks ? { state: 'found', landmarks } : { state: 'none' }),
      () => isCurrent && setFace({ state: 'failed' }),
    );
    return () => {
      isCurrent = false;
    };
  }, [file]);

  const submit = () => {
    const errors: { name?: string; file?: string } = {};
    if (!name.trim()) errors.name = ImageAvatarMessages.nameRequired;
    if (!file) errors.file = ImageAvatarMessages.thumbnailRequired;
    setFieldErrors(errors);
    if (errors.name || errors.file || !file) return;
    onComplete({ name: name.trim(), thumbnail: file, ...(face.state === 'found' ? { landmarks: face.landmarks } : {}) });
  };

  return (
    <>
      <DialogTitle id="complete-title" sx={{ fontWeight: 700 }}>
        Complete image avatar
      </DialogTitle>
      <DialogContent>
        <DialogContentText sx={{ mb: 2 }}>
          Upload the finished avatar&apos;s image for {request.userName} ({request.email}). It is added to their avatar catalogue and they are e-mailed.
        </DialogContentText>
        <Box sx={{ display: 'grid', gridTemplateColumns: { xs: '1fr', sm: '140px 1fr' }, gap: 2, alignItems: 'start' }}>
          <Box
            sx={{
              width: 140,
              height: 140,
              borderRadius: 2.5,
              border: 1,
              borderStyle: preview ? 'solid' : 'dashed',
              borderColor: fieldErrors.file ? 'error.main' : 'divider',
              display: 'grid',
              placeItems: 'center',
              overflow: 'hidden',
              bgcolor: 'rgba(17, 24, 39, 0.03)',
              justifySelf: { xs: 'center', sm: 'start' },
            }}
          >
            {preview ? (
              <Box component="img" src={preview} alt="Finished avatar preview" sx={{ width: '100%', height: '100%', objectFit: 'cover' }} />
            ) : (
              <CloudUploadOutlinedIcon sx={{ fontSize: 36, color: 'text.secondary' }} />
            )}
          </Box>
          <Box sx={{ display: 'grid', gap: 2 }}>
            <TextField
              label="Avatar Name"
              value={name}
              onChange={(e) => {
                setName(e.target.value);
                if (e.target.value.trim()) setFieldErrors((f) => ({ ...f, name: undefined }));
              }}
              error={Boolean(fieldErrors.name)}
              helperText={fieldErrors.name}
              size="small"
              fullWidth
              slotProps={{ htmlInput: { maxLength: 100 } }}
            />
            <Box>
              <Button component="label" variant="outlined" startIcon={<CloudUploadOutlinedIcon />}>
                {file ? 'Choose another image' : 'Choose avatar image'}
                <input
                  hidden
                  type="file"
                  accept=".jpg,.jpeg,.png,image/jpeg,image/png"
                  aria-label="Avatar image"
                  onChange={(e) => {
                    const chosen = e.target.files?.[0] ?? null;
                    e.target.value = '';
                    if (!chosen) return;
                    if (!ACCEPTED.includes(chosen.type)) {
                      setFieldErrors((f) => ({ ...f, file: NOT_AN_IMAGE }));
                      return;
                    }
                    setFile(chosen);
                    setFieldErrors((f) => ({ ...f, file: undefined }));
                  }}
                />
              </Button>
              <Typography variant="body2" color={fieldErrors.file ? 'error' : 'text.secondary'} sx={{ mt: 0.75, overflowWrap: 'anywhere' }}>
                {fieldErrors.file ?? (file ? file.name : 'JPG or PNG.')}
              </Typography>
              {face.state !== 'idle' ? (
                <Typography variant="body2" role="status" color={face.state === 'found' ? 'success.dark' : 'text.secondary'} sx={{ mt: 0.5 }}>
                  {face.state === 'searching'
                    ? ImageAvatarMessages.faceSearching
                    : face.state === 'found'
                      ? ImageAvatarMessages.faceFound
                      : face.state === 'none'
                        ? ImageAvatarMessages.faceNotFound
                        : ImageAvatarMessages.faceSearchFailed}
                </Typography>
              ) : null}
            </Box>
          </Box>
        </Box>
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
        <Button color="success" variant="contained" onClick={submit} loading={isBusy || face.state === 'searching'}>
          Complete
        </Button>
      </DialogActions>
    </>
  );
}
