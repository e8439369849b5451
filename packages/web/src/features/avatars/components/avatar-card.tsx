import { Suspense, lazy, useRef, useState } from 'react';
import { Link as RouterLink } from 'react-router';
import Avatar from '@mui/material/Avatar';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import ButtonBase from '@mui/material/ButtonBase';
import Collapse from '@mui/material/Collapse';
import IconButton from '@mui/material/IconButton';
import Paper from '@mui/material/Paper';
import TextField from '@mui/material/TextField';
import Tooltip from '@mui/material/Tooltip';
import Typography from '@mui/material/Typography';
import CameraAltOutlinedIcon from '@mui/icons-material/CameraAltOutlined';
import CloseIcon from '@mui/icons-material/Close';
import DeleteOutlineIcon from '@mui/icons-material/DeleteOutlineOutlined';
import EditOutlinedIcon from '@mui/icons-material/EditOutlined';
import ExpandMoreIcon from '@mui/icons-material/ExpandMore';
import Face6OutlinedIcon from '@mui/icons-material/Face6Outlined';
import ForumOutlinedIcon from '@mui/icons-material/ForumOutlined';
import OpenInNewIcon from '@mui/icons-material/OpenInNew';
import RefreshIcon from '@mui/icons-material/Refresh';
import SaveOutlinedIcon from '@mui/icons-material/SaveOutlined';
import { AvatarLimits, AvatarMessages } from '@persona/contract';
import { paths } from '../../../lib/paths';
import { showToast } from '../../../lib/toast';
import { listAvatarUsers } from '../api/list-avatar-users';
import { ERROR_TOAST_MS } from '../lib/editor-model';
import { jpegName } from '../lib/photo';
import { connectUrl } from '../lib/preview';
import { useOptionalEditorSession } from './editor/editor-session';

import type { TAvatar } from '@persona/contract';

const PhotoCropDialog = lazy(() => import('./photo-crop-dialog').then((m) => ({ default: m.PhotoCropDialog })));

export interface AvatarCardProps {
  avatar: TAvatar;
  isSelected: boolean;
  isExpanded: boolean;
  onToggleExpanded: () => void;
  /** Mobile: Connect only. */
  isCompact?: boolean;
  onEdit?: () => void;
  onClose?: () => void;
  onDelete?: () => void;
  onShowUsers?: () => void;
  /** The chosen appearance's picture, shown when the avatar has no photo of its own. */
  appearancePicture?: string;
  /** The avatar wears its owner's uploaded model: without a photo, the model's sign (as on its tile), not a catalogue look. */
  hasOwnModel?: boolean;
}

export function formatUpdated(iso: string): string {
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? iso : date.toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' });
}

/** Width of the "·" between two parts of a meta line (with its spaces). */
const SEPARATOR = '1.1em';

/**
 * Short facts on one line ("ID 12 · Upper Body 3D"), each kept whole: in a narrow card a part
 * goes to the next line. Empty parts are left out, and a separator is drawn only between two
 * parts on the same line: each part after the first begins with one, and the row is shifted
 * left by its width inside a box that clips — so the one that would start a line is cut off,
 * and none ends a line.
 */
export function MetaLine({ parts }: { parts: readonly (string | null | undefined)[] }) {
  const shown = parts.map((p) => p?.trim() ?? '').filter(Boolean);
  return (
    <Typography variant="caption" color="text.secondary" component="div" sx={{ overflow: 'hidden' }}>
      <Box component="span" sx={{ display: 'flex', flexWrap: 'wrap', ml: `-${SEPARATOR}` }}>
        {shown.map((part, i) => (
          <Box component="span" key={`${i}-${part}`} sx={{ whiteSpace: 'nowrap' }}>
            <Box component="span" aria-hidden="true" sx={{ display: 'inline-block', width: SEPARATOR, textAlign: 'center' }}>
              ·
            </Box>
            {part}
          </Box>
        ))}
      </Box>
    </Typography>
  );
}

function Detail({ label, children }: { label: string; children: React.ReactNode }) {
  return (
    <Box sx={{ display: 'flex', justifyContent: 'space-between', gap: 1.5, py: 0.5, alignItems: 'center', minHeight: 30 }}>
      <Typography variant="body2" color="text.secondary" sx={{ flexShrink: 0 }}>
        {label}
      </Typography>
      <Box sx={{ typography: 'body2', fontWeight: 600, textAlign: 'right', minWidth: 0, overflow: 'hidden', textOverflow: 'ellipsis' }}>{children}</Box>
    </Box>
  );
}

export function AvatarCard({ avatar, isSelected, isExpanded, onToggleExpanded, isCompact = false, onEdit, onClose, onDelete, onShowUsers, appearancePicture, hasOwnModel = false }: AvatarCardProps) {
  const session = useOptionalEditorSession();
  const editing = isSelected && session?.mode.kind === 'edit' ? session : null;
  const [usersCount, setUsersCount] = useState(avatar.usersCount);
  const [isCounting, setIsCounting] = useState(false);
  const [cropSource, setCropSource] = useState<string | null>(null);
  const fileInput = useRef<HTMLInputElement>(null);
  const photo = editing?.draft.avatarPhotoBase64 ?? (avatar.avatarPhotoURL || appearancePicture);
  const name = editing ? editing.draft.name : avatar.name;

  const refreshCount = async () => {
    setIsCounting(true);
    try {
      setUsersCount((await listAvatarUsers(avatar.id)).length);
    } catch {
      void showToast(AvatarMessages.activeUsersFailed, 'error', { autoHideDurationMs: ERROR_TOAST_MS });
    } finally {
      setIsCounting(false);
    }
  };

  const choosePhoto = (file: File | undefined) => {
    if (!file) return;
    if (!/^image\/(jpeg|png|svg\+xml|webp|gif)$/.test(file.type)) {
      void showToast('❌ Invalid file type or file exceeds size limit.', 'error', { autoHideDurationMs: ERROR_TOAST_MS });
      return;
    }
    // The photo becomes a JPEG whatever its type (an .svg is renamed to .jpeg).
    const renamed = new File([file], jpegName(file.name), { type: file.type });
    setCropSource(URL.createObjectURL(renamed));
  };

  const isModelSign = !photo && hasOwnModel;
  const photoNode = (
    <Avatar
      src={photo}
      alt=""
      data-testid={isModelSign ? 'own-model-picture' : undefined}
      title={isModelSign ? 'Your own 3D model' : undefined}
      sx={{ width: 52, height: 52, bgcolor: isModelSign ? 'grey.200' : 'primary.main', color: isModelSign ? 'text.secondary' : 'primary.contrastText', fontWeight: 700, fontSize: 20 }}
    >
      {isModelSign ? <Face6OutlinedIcon aria-hidden /> : avatar.name.slice(0, 1).toUpperCase()}
    </Avatar>
  );

  return (
    <Paper
      variant="outlined"
      data-testid={`avatar-card-${avatar.id}`}
      sx={{
        overflow: 'hidden',
        // In the list's scrolling column (a flex column with a maximum height) a card keeps its
        // own height: shrunk to share the column, it cut its photo, subtitle and buttons.
        flexShrink: 0,
        borderColor: isSelected ? 'primary.main' : 'divider',
        boxShadow: isSelected ? '0 0 0 3px rgba(79, 70, 229, 0.14)' : 'none',
        transition: 'border-color 120ms, box-shadow 120ms',
      }}
    >
      {/* A click on the card's body selects it (the EDIT button is the keyboard's way). */}
      <Box
        onClick={(event) => {
          if (isSelected || isCompact || !onEdit || (event.target as HTMLElement).closest('button, a, input, [role="button"]')) return;
          onEdit();
        }}
        data-testid={`avatar-card-body-${avatar.id}`}
        sx={{ display: 'flex', alignItems: 'center', gap: 1.5, p: 1.5, cursor: isSelected || isCompact ? 'default' : 'pointer' }}
      >
        {editing ? (
          <Tooltip title="Change photo">
            <ButtonBase
              onClick={() => fileInput.current?.click()}
              aria-label="Change avatar photo"
              sx={{ borderRadius: '50%', position: 'relative', '&:hover .overlay': { opacity: 1 } }}
            >
              {photoNode}
              <Box
                className="overlay"
                sx={{ position: 'absolute', inset: 0, borderRadius: '50%', bgcolor: 'rgba(15,23,42,0.45)', opacity: 0, transition: 'opacity 120ms' }}
              />
              <Box
                sx={{ position: 'absolute', right: -2, bottom: -2, width: 22, height: 22, borderRadius: '50%', bgcolor: 'primary.main', color: '#fff', display: 'grid', placeItems: 'center', border: '2px solid #fff' }}
              >
                <CameraAltOutlinedIcon sx={{ fontSize: 13 }} />
              </Box>
            </ButtonBase>
          </Tooltip>
        ) : (
          photoNode
        )}
        <input ref={fileInput} type="file" accept="image/*" hidden onChange={(e) => choosePhoto(e.target.files?.[0])} data-testid="avatar-photo-input" />
        <Box sx={{ flex: 1, minWidth: 0 }}>
          {editing ? (
            <TextField
              size="small"
              variant="standard"
              value={name}
              onChange={(e) => editing.updateDraft({ name: e.target.value })}
              error={!name.trim()}
              helperText={!name.trim() ? AvatarMessages.nameRequired : undefined}
              fullWidth
              slotProps={{ htmlInput: { 'aria-label': 'Avatar Name', maxLength: AvatarLimits.nameMax } }}
              sx={{ '& input': { fontWeight: 700 } }}
            />
          ) : (
            <Typography sx={{ fontWeight: 700, whiteSpace: 'nowrap', overflow: 'hidden', textOverflow: 'ellipsis' }} title={avatar.name}>
              {avatar.name}
            </Typography>
          )}
          <MetaLine parts={[`ID ${avatar.id}`, avatar.dhTypeName]} />
        </Box>
        {!isCompact ? (
          <Tooltip title="Delete">
            <IconButton size="small" onClick={onDelete} aria-label={`Delete ${avatar.name}`} sx={{ color: 'text.secondary', '&:hover': { color: 'error.main' } }}>
              <DeleteOutlineIcon fontSize="small" />
            </IconButton>
          </Tooltip>
        ) : null}
        {!isSelected ? (
          <IconButton
            size="small"
            onClick={onToggleExpanded}
            aria-label={isExpanded ? `Collapse ${avatar.name}` : `Expand ${avatar.name}`}
            aria-expanded={isExpanded}
            sx={{ transform: isExpanded ? 'rotate(180deg)' : 'none', transition: 'transform 150ms' }}
          >
            <ExpandMoreIcon />
          </IconButton>
        ) : null}
      </Box>
      <Collapse in={isExpanded || isSelected} unmountOnExit>
        <Box sx={{ px: 1.5, pb: 1.5 }}>
          <Box sx={{ borderTop: 1, borderColor: 'divider', pt: 1 }}>
            <Detail label="Avatar ID">{avatar.id}</Detail>
            <Detail label="Avatar Engine">{avatar.nlpEngineName}</Detail>
            <Detail label="Last Updated">{formatUpdated(avatar.updated)}</Detail>
            <Detail label="Online Users">
              <Box sx={{ display: 'inline-flex', alignItems: 'center', gap: 0.5 }}>
                <Button size="small" onClick={onShowUsers} sx={{ minWidth: 0, px: 1, fontWeight: 700 }} aria-label={`${usersCount} online users, show details`}>
                  {usersCount}
                </Button>
                <Tooltip title="Refresh">
                  <span>
                    <IconButton size="small" onClick={() => void refreshCount()} disabled={isCounting} aria-label="Refresh online users">
                      <RefreshIcon fontSize="small" />
                    </IconButton>
                  </span>
                </Tooltip>
              </Box>
            </Detail>
          </Box>
          <Box sx={{ display: 'flex', flexWrap: 'wrap', gap: 1, mt: 1.5 }}>
            {!isCompact ? (
              editing ? (
                <Button size="small" variant="contained" startIcon={<SaveOutlinedIcon />} onClick={editing.requestSave} disabled={editing.isSaving}>
                  Save
                </Button>
              ) : (
                <Button size="small" variant="contained" startIcon={<EditOutlinedIcon />} onClick={onEdit}>
                  Edit
                </Button>
              )
            ) : null}
            {!isCompact && isSelected ? (
              <Button size="small" variant="outlined" color="inherit" startIcon={<CloseIcon />} onClick={onClose}>
                Close
              </Button>
            ) : null}
            <Button
              size="small"
              variant={isCompact ? 'contained' : 'outlined'}
              startIcon={<OpenInNewIcon />}
              component="a"
              href={connectUrl(avatar.accessLink, avatar.token)}
              target="_blank"
              rel="noopener noreferrer"
            >
              Connect
            </Button>
            {!isCompact ? (
              <Button size="small" variant="outlined" color="inherit" startIcon={<ForumOutlinedIcon />} component={RouterLink} to={`${paths.conversations}?avatarId=${avatar.id}`}>
                Conversations
              </Button>
            ) : null}
          </Box>
        </Box>
      </Collapse>
      {cropSource ? (
        <Suspense fallback={null}>
          <PhotoCropDialog
            source={cropSource}
            onCancel={() => setCropSource(null)}
            onCropped={(dataUrl) => {
              editing?.updateDraft({ avatarPhotoBase64: dataUrl });
              setCropSource(null);
            }}
          />
        </Suspense>
      ) : null}
    </Paper>
  );
}
