import { useEffect, useMemo, useState } from 'react';
import { useDropzone } from 'react-dropzone';
import Alert from '@mui/material/Alert';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import Checkbox from '@mui/material/Checkbox';
import Dialog from '@mui/material/Dialog';
import DialogActions from '@mui/material/DialogActions';
import DialogContent from '@mui/material/DialogContent';
import DialogTitle from '@mui/material/DialogTitle';
import FormControlLabel from '@mui/material/FormControlLabel';
import FormHelperText from '@mui/material/FormHelperText';
import Stack from '@mui/material/Stack';
import TextField from '@mui/material/TextField';
import Typography from '@mui/material/Typography';
import CloudUploadOutlinedIcon from '@mui/icons-material/CloudUploadOutlined';
import WorkspacePremiumOutlinedIcon from '@mui/icons-material/WorkspacePremiumOutlined';
import { AccountMessages, AvatarMedia, AvatarMediaMessages, AvatarMessages, ImageAvatarMessages, SubscriptionType, ZImageAvatarRequestInput } from '@persona/contract';
import { errorMessages } from '../../../lib/api-client';
import { showToast } from '../../../lib/toast';
import { useRequestImageAvatar } from '../api/request-image-avatar';
import { useRequestUpgrade } from '../api/request-upgrade';
import { ERROR_TOAST_MS, SUCCESS_TOAST_MS } from '../lib/editor-model';
import { canHaveImageAvatars } from './image-avatar-plans';

const PHOTO = AvatarMedia.imageAvatarPhoto;
const MAX_PHOTO_MB = PHOTO.maxMb;

export interface ImageAvatarDialogProps {
  open: boolean;
  onClose: () => void;
  subscriptionType: number;
  requestedSubType: number | null;
  accountEmail: string;
  /** Where photos are sent by e-mail (the server's CONTACT_EMAIL), never derived from the page's host. */
  contactEmail?: string;
}


/** Uploading an image avatar: the request form on PRO/ENTERPRISE, the upgrade offer below. */
export function ImageAvatarDialog(props: ImageAvatarDialogProps) {
  const isAllowed = canHaveImageAvatars(props.subscriptionType);
  return (
    <Dialog open={props.open} onClose={props.onClose} maxWidth="sm" fullWidth aria-labelledby="image-avatar-title">
      {isAllowed ? <RequestForm {...props} /> : <UpgradeOffer {...props} />}
    </Dialog>
  );
}

function UpgradeOffer({ onClose, requestedSubType }: ImageAvatarDialogProps) {
  const upgrade = useRequestUpgrade();
  const isRequested = upgrade.isSuccess || requestedSubType === SubscriptionType.PRO || requestedSubType === SubscriptionType.ENTERPRISE;
  const requestPro = () =>
    upgrade.mutate(
      { subType: SubscriptionType.PRO, dhType: 2 },
      {
        onSuccess: () => void showToast(AccountMessages.planRequestSent, 'success', { autoHideDurationMs: SUCCESS_TOAST_MS }),
        onError: (error) => void showToast(errorMessages(error).join(' ') || AccountMessages.planRequestFailed, 'error', { autoHideDurationMs: ERROR_TOAST_MS }),
      },
    );
  return (
    <>
      <DialogTitle id="image-avatar-title" sx={{ fontWeight: 700 }}>
        {AvatarMessages.higherPlanRequired}
      </DialogTitle>
      <DialogContent>
        <Stack direction="row" spacing={2} sx={{ alignItems: "flex-start" }}>
          <WorkspacePremiumOutlinedIcon color="primary" sx={{ fontSize: 40 }} aria-hidden />
          <Box>
            <Typography>
              Image avatars — a talking clone made from one photo — are part of the <strong>PRO</strong> and <strong>ENTERPRISE</strong> plans.
            </Typography>
            <Typography color="text.secondary" sx={{ mt: 1 }}>
              Ask for an upgrade and we will confirm the change by e-mail. Your avatars and settings stay as they are.
            </Typography>
            {isRequested ? (
              <Alert severity="success" sx={{ mt: 2 }}>
                Your upgrade request has been sent. We will let you know when it is confirmed.
              </Alert>
            ) : null}
          </Box>
        </Stack>
      </DialogContent>
      <DialogActions sx={{ px: 3, pb: 2 }}>
        <Button onClick={onClose} color="inherit">
          Close
        </Button>
        <Button variant="contained" onClick={requestPro} disabled={isRequested || upgrade.isPending}>
          {isRequested ? 'Upgrade requested' : 'Request upgrade to PRO'}
        </Button>
      </DialogActions>
    </>
  );
}

function RequestForm({ onClose, accountEmail, contactEmail }: ImageAvatarDialogProps) {
  const request = useRequestImageAvatar();
  const [photo, setPhoto] = useState<File | null>(null);
  const [photoError, setPhotoError] = useState<string | null>(null);
  const [name, setName] = useState('');
  const [notes, setNotes] = useState('');
  const [permission, setPermission] = useState(false);
  const [errors, setErrors] = useState<Record<string, string>>({});
  const previewUrl = useMemo(() => (photo ? URL.createObjectURL(photo) : null), [photo]);
  useEffect(() => () => (previewUrl ? URL.revokeObjectURL(previewUrl) : undefined), [previewUrl]);

  const dropzone = useDropzone({
    accept: PHOTO.types,
    maxFiles: 1,
    maxSize: MAX_PHOTO_MB * 1024 * 1024,
    onDropAccepted: ([file]) => {
      setPhoto(file ?? null);
      setPhotoError(null);
    },
    onDropRejected: ([rejection]) => {
      const tooBig = rejection?.errors.some((e) => e.code === 'file-too-large');
      setPhotoError(tooBig ? AvatarMessages.fileTooBig(MAX_PHOTO_MB, PHOTO.label) : AvatarMediaMessages.imageAvatarPhotoWrongType);
    },
  });

  const submit = () => {
    const parsed = ZImageAvatarRequestInput.safeParse({ name, notes, permissionConfirmed: permission });
    const next: Record<string, string> = {};
    if (!parsed.success) for (const issue of parsed.error.issues) next[String(issue.path[0])] ??= issue.message;
    if (!photo) setPhotoError(ImageAvatarMessages.photoRequired);
    setErrors(next);
    if (!parsed.success || !photo) return;
    request.mutate(
      { photo, name: parsed.data.name, notes: parsed.data.notes, permissionConfirmed: true },
      {
        onSuccess: () => {
          void showToast(ImageAvatarMessages.requested, 'success', { autoHideDurationMs: 4000 });
          onClose();
        },
        onError: (error) => void showToast(errorMessages(error).join(' '), 'error', { autoHideDurationMs: ERROR_TOAST_MS }),
      },
    );
  };

  return (
    <>
      <DialogTitle id="image-avatar-title" sx={{ fontWeight: 700 }}>
        Upload an image avatar
      </DialogTitle>
      <DialogContent>
        <Typography color="text.secondary" sx={{ mb: 2 }}>
          Send one clear, front-facing photo of a face. Our team turns it into a talking image avatar in about 24-48 hours; it then appears
          first under IMAGE AVATARS.
        </Typography>
        <Box
          {...dropzone.getRootProps()}
          sx={{
            border: '2px dashed',
            borderColor: dropzone.isDragActive ? 'primary.main' : photoError ? 'error.main' : 'divider',
            borderRadius: 3,
            p: 2,
            display: 'flex',
            alignItems: 'center',
            gap: 2,
            cursor: 'pointer',
            bgcolor: dropzone.isDragActive ? 'rgba(79, 70, 229, 0.05)' : 'grey.50',
          }}
        >
          <input {...dropzone.getInputProps()} aria-label="Face photo" />
          {previewUrl ? (
            <Box component="img" src={previewUrl} alt="Chosen face photo" sx={{ width: 72, height: 72, objectFit: 'cover', borderRadius: 2 }} />
          ) : (
            <CloudUploadOutlinedIcon color="primary" sx={{ fontSize: 40 }} aria-hidden />
          )}
          <Box>
            <Typography sx={{ fontWeight: 600 }}>{photo ? photo.name : 'Drop the face photo here, or click to choose'}</Typography>
            <Typography variant="caption" color="text.secondary">
              .jpg or .png, up to {MAX_PHOTO_MB} MB
            </Typography>
          </Box>
        </Box>
        {photoError ? <FormHelperText error>{photoError}</FormHelperText> : null}
        <Stack spacing={2} sx={{ mt: 2 }}>
          <TextField label="Avatar Name" value={name} onChange={(e) => setName(e.target.value)} error={Boolean(errors.name)} helperText={errors.name} fullWidth />
          <TextField label="Notes for our team (optional)" value={notes} onChange={(e) => setNotes(e.target.value)} multiline minRows={2} fullWidth />
          <Box>
            <FormControlLabel
              control={<Checkbox checked={permission} onChange={(e) => setPermission(e.target.checked)} />}
              label="I confirm that I am the person in this photo, or that I have their written permission to create an avatar of them."
            />
            {errors.permissionConfirmed ? <FormHelperText error>{errors.permissionConfirmed}</FormHelperText> : null}
          </Box>
        </Stack>
        {contactEmail ? (
        <Alert severity="info" sx={{ mt: 2 }}>
          <Typography variant="body2" sx={{ fontWeight: 600, mb: 0.5 }}>
            Prefer e-mail?
          </Typography>
          <Typography variant="body2" component="div">
            Send the photo from {accountEmail || 'your account e-mail'} to {contactEmail}. For a real person, attach proof of their permission.
            For the best result use a well-lit, sharp photo (at least 1024 px), face looking at the camera, neutral expression, mouth closed, no
            sunglasses, hats or hair over the face, plain background.
          </Typography>
        </Alert>
        ) : null}
      </DialogContent>
      <DialogActions sx={{ px: 3, pb: 2 }}>
        <Button onClick={onClose} color="inherit" disabled={request.isPending}>
          Cancel
        </Button>
        <Button variant="contained" onClick={submit} disabled={request.isPending}>
          {request.isPending ? 'Sending…' : 'Send request'}
        </Button>
      </DialogActions>
    </>
  );
}
