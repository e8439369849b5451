import { useEffect, useState } from 'react';
import Alert from '@mui/material/Alert';
import { AvatarMessages, Limits } from '@persona/contract';
import { ConfirmDialog } from '../../../components/confirm-dialog';
import { isApiError } from '../../../lib/api-client';
import { useDeleteAvatar } from '../api/delete-avatar';

export interface DeleteAvatarDialogProps {
  avatar: { id: number; name: string } | null;
  onClose: () => void;
  onDeleted: (id: number) => void;
}

/** 'Are you sure you want to delete {name}? …'; closes 2000 ms after a successful delete. */
export function DeleteAvatarDialog({ avatar, onClose, onDeleted }: DeleteAvatarDialogProps) {
  const remove = useDeleteAvatar();
  const [isDone, setIsDone] = useState(false);
  const [errors, setErrors] = useState<string[] | null>(null);

  useEffect(() => {
    if (!isDone || !avatar) return;
    const timer = setTimeout(() => {
      onDeleted(avatar.id);
      onClose();
      setIsDone(false);
    }, Limits.avatarDeleteDialogMs);
    return () => clearTimeout(timer);
  }, [isDone, avatar, onClose, onDeleted]);

  const confirm = () => {
    if (!avatar) return;
    setErrors(null);
    remove.mutate(avatar.id, {
      onSuccess: () => setIsDone(true),
      onError: (error) => setErrors(isApiError(error) ? error.errors : []),
    });
  };

  const close = () => {
    setErrors(null);
    setIsDone(false);
    onClose();
  };

  return (
    <ConfirmDialog
      open={avatar !== null}
      title="Delete Avatar"
      confirmLabel="Delete"
      cancelLabel="Cancel"
      tone="error"
      isBusy={remove.isPending || isDone}
      onConfirm={confirm}
      onCancel={close}
      footer={
        isDone ? (
          <Alert severity="success" sx={{ mt: 2 }}>
            {AvatarMessages.deleted}
          </Alert>
        ) : errors ? (
          <Alert severity="error" sx={{ mt: 2 }}>
            {AvatarMessages.deleteFailed}
            {errors.map((line) => (
              <div key={line}>{line}</div>
            ))}
          </Alert>
        ) : null
      }
    >
      {AvatarMessages.deleteDialog(avatar?.name ?? '')}
    </ConfirmDialog>
  );
}
