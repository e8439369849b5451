import { useState } from 'react';
import IconButton from '@mui/material/IconButton';
import Tooltip from '@mui/material/Tooltip';
import DeleteOutlineIcon from '@mui/icons-material/DeleteOutlineOutlined';
import { AvatarMessages, type TAvatar } from '@persona/contract';
import { errorMessages } from '../../../../lib/api-client';
import { showToast } from '../../../../lib/toast';
import { useUploadAvatarMedia } from '../../api/upload-avatar-media';
import { ERROR_TOAST_MS, storedPayload, SUCCESS_TOAST_MS } from '../../lib/editor-model';
import { useEditorSession } from './editor-session';

const MB = 1024 * 1024;
/** One toast for the media actions: 'Uploading...' / 'Removing...' give way to their outcome. */
const MEDIA_TOAST = 'avatar-media';

export type MediaField = 'backgroundImage' | 'scene' | 'avatarModel';
export type MediaItem = TAvatar['mediaDetails']['scene'][number];

/**
 * Upload / remove an avatar's media right away (they are files, not draft settings): the
 * Environment tab's backgrounds and scenes, the Appearance tab's own 3D models. The server's
 * answer replaces the editor's agent; `onUploaded` gets the item the upload added.
 */
export function useMediaActions() {
  const session = useEditorSession();
  const upload = useUploadAvatarMedia();
  const [progress, setProgress] = useState<number | null>(null);
  const [doomed, setDoomed] = useState<{ id: number; url: string } | null>(null);

  const basePayload = () => ({ ...storedPayload(session.agent as TAvatar), version: session.loadedVersion });

  const send = async (field: MediaField, file: File, limit: { mb: number; label: string }, onUploaded: (added: MediaItem) => void) => {
    if (file.size > limit.mb * MB) {
      void showToast(`❌ ${AvatarMessages.fileTooBig(limit.mb, limit.label)}`, 'error', { autoHideDurationMs: ERROR_TOAST_MS, id: MEDIA_TOAST });
      return;
    }
    const before = new Set((session.agent?.mediaDetails[field] ?? []).map((m) => m.id));
    setProgress(0);
    void showToast('Uploading...', 'info', { autoHideDurationMs: SUCCESS_TOAST_MS, id: MEDIA_TOAST });
    try {
      const saved = await upload.mutateAsync({ payload: basePayload(), field, file, onProgress: (p) => setProgress(Math.min(98, Math.round(p * 100))) });
      session.acceptServerAgent(saved);
      const added = (saved.mediaDetails[field] ?? []).find((m) => !before.has(m.id));
      if (added) onUploaded(added);
      void showToast('File uploaded successfully', 'success', { autoHideDurationMs: SUCCESS_TOAST_MS, id: MEDIA_TOAST });
    } catch (error) {
      void showToast(errorMessages(error).join(' ') || 'There was an error uploading the file. Please try submitting it again.', 'error', {
        autoHideDurationMs: ERROR_TOAST_MS,
        id: MEDIA_TOAST,
      });
    } finally {
      setProgress(null);
    }
  };

  /** Deletes the item waiting for confirmation (`doomed`). */
  const remove = async (onRemoved: (url: string) => void) => {
    if (!doomed) return;
    const item = doomed;
    void showToast('Removing...', 'info', { autoHideDurationMs: SUCCESS_TOAST_MS, id: MEDIA_TOAST });
    try {
      const saved = await upload.mutateAsync({ payload: { ...basePayload(), deleteMediaIds: [item.id] } });
      session.acceptServerAgent(saved);
      onRemoved(item.url);
      void showToast('File removed successfully', 'success', { autoHideDurationMs: SUCCESS_TOAST_MS, id: MEDIA_TOAST });
    } catch (error) {
      void showToast(errorMessages(error).join(' '), 'error', { autoHideDurationMs: ERROR_TOAST_MS, id: MEDIA_TOAST });
    } finally {
      setDoomed(null);
    }
  };

  return { send, remove, progress, doomed, setDoomed, isBusy: upload.isPending };
}

/** The delete button on an uploaded item's thumbnail. */
export function MediaDeleteAction({ name, onClick, disabled }: { name: string; onClick: () => void; disabled?: boolean }) {
  return (
    <Tooltip title="Delete">
      <span>
        <IconButton
          size="small"
          aria-label={`Delete ${name}`}
          disabled={disabled}
          onClick={(e) => {
            e.stopPropagation();
            onClick();
          }}
          sx={{ bgcolor: 'rgba(255,255,255,0.92)', boxShadow: 1, '&:hover': { bgcolor: '#fff', color: 'error.main' } }}
        >
          <DeleteOutlineIcon fontSize="small" />
        </IconButton>
      </span>
    </Tooltip>
  );
}
