import { useState } from 'react';
import { useDropzone } from 'react-dropzone';
import Alert from '@mui/material/Alert';
import Box from '@mui/material/Box';
import Chip from '@mui/material/Chip';
import LinearProgress from '@mui/material/LinearProgress';
import Stack from '@mui/material/Stack';
import Typography from '@mui/material/Typography';
import CloudUploadOutlinedIcon from '@mui/icons-material/CloudUploadOutlined';
import Face6OutlinedIcon from '@mui/icons-material/Face6Outlined';
import { AvatarLimits, type TAvatarModelReport } from '@persona/contract';
import { ConfirmDialog } from '../../../../components/confirm-dialog';
import { readOwnModel, setOwnModel } from '../../lib/avatar-config';
import { showToast } from '../../../../lib/toast';
import { ERROR_TOAST_MS } from '../../lib/editor-model';
import { AddTile, ThumbnailGrid } from '../thumbnail-grid';
import { useEditorSession } from './editor-session';
import { MediaDeleteAction, useMediaActions } from './use-media-actions';

const MODEL_ACCEPT = { 'model/gltf-binary': ['.glb', '.vrm'], 'application/octet-stream': ['.glb', '.vrm'] };
const LIP_SYNC: Record<TAvatarModelReport['lipSync'], string> = {
  vrm: 'VRM mouth expressions',
  oculus: 'Oculus visemes',
  arkit: 'ARKit blend shapes',
  none: 'no mouth shapes',
};

/** One line a person can read: what the check found in a model. */
export function describeModel(report: TAvatarModelReport): string {
  const parts = [
    report.format === 'vrm' ? 'VRM' : 'glTF',
    `${report.vertices.toLocaleString('en-US')} vertices`,
    `${report.textures} texture${report.textures === 1 ? '' : 's'}`,
    `lip-sync: ${LIP_SYNC[report.lipSync]}`,
    report.blink ? 'blinks' : 'no blink',
  ];
  return parts.join(' · ');
}

/**
 * The customer's own 3D avatars (.glb with Oculus visemes or ARKit shapes, or .vrm): uploaded
 * like other media (checked by the server, which says what it found), chosen like a catalogue look.
 */
export function OwnModels({ dhType, firstParentOfType }: { dhType: number; firstParentOfType: string | undefined }) {
  const session = useEditorSession();
  const { agent, draft, updateDraft, isAvatarSelfHosted, mode } = session;
  const media = useMediaActions();
  const [lastReport, setLastReport] = useState<{ name: string; report: TAvatarModelReport } | null>(null);
  // The catalogue parents carry their own modelURL: only the avatar's own config says "own model".
  const chosen = readOwnModel(draft.avatarConfig);
  const own = agent?.mediaDetails.avatarModel ?? [];
  const isDisabled = mode.kind !== 'edit' || isAvatarSelfHosted || media.isBusy;

  const choose = (url: string, format: 'glb' | 'vrm') =>
    updateDraft((current) => {
      // Another body type: start from that type's first catalogue look (lights, scene), then the model.
      const base = current.dhType === dhType || !firstParentOfType ? current.avatarConfig : { ParentConfig: firstParentOfType };
      return { dhType, avatarConfig: setOwnModel(base, { url, format }) };
    });

  const send = (file: File) => {
    setLastReport(null);
    return media.send('avatarModel', file, { mb: AvatarLimits.avatarModelMaxMb, label: 'avatar model' }, (added) => {
      if (!added.model) return;
      setLastReport({ name: added.name ?? file.name, report: added.model });
      choose(added.url, added.model.format);
    });
  };

  const remove = () =>
    media.remove((url) => {
      if (chosen === url) updateDraft((current) => ({ avatarConfig: setOwnModel(current.avatarConfig, null) }));
    });

  const dropzone = useDropzone({
    accept: MODEL_ACCEPT,
    multiple: false,
    disabled: isDisabled,
    onDropAccepted: ([file]) => file && void send(file),
    onDropRejected: () => void showToast('❌ The avatar model must be a .glb or .vrm file.', 'error', { autoHideDurationMs: ERROR_TOAST_MS }),
  });

  return (
    <Box component="section" aria-label="Your own 3D models" sx={{ mt: 3 }}>
      <Typography variant="subtitle1" component="h3" sx={{ fontWeight: 700 }}>
        Your own 3D models
      </Typography>
      <Typography variant="body2" color="text.secondary" sx={{ mb: 1.5 }}>
        A .vrm, or a .glb with Oculus visemes or ARKit blend shapes (Ready Player Me), up to {AvatarLimits.avatarModelMaxMb} MB. Each upload is
        checked: what it can do is shown below.
      </Typography>
      {mode.kind !== 'edit' ? (
        <Alert severity="info">Create the avatar first, then upload your own model here.</Alert>
      ) : (
        <Stack spacing={1.5}>
          {media.progress !== null ? (
            <Box role="status" aria-live="polite">
              <Typography variant="body2" color="text.secondary" sx={{ mb: 0.5 }}>
                Uploading and checking... {media.progress}%
              </Typography>
              <LinearProgress variant="determinate" value={media.progress} />
            </Box>
          ) : null}
          {lastReport ? (
            <Alert severity={lastReport.report.warnings.length ? 'warning' : 'success'} onClose={() => setLastReport(null)} role="status">
              <Typography variant="body2" sx={{ fontWeight: 700 }}>
                {lastReport.name}: {describeModel(lastReport.report)}
              </Typography>
              {lastReport.report.warnings.map((w) => (
                <Typography key={w} variant="body2">
                  {w}
                </Typography>
              ))}
            </Alert>
          ) : null}
          <ThumbnailGrid
            label="Your own 3D models"
            items={own.map((m) => ({
              id: `model:${m.id}`,
              name: m.name ?? `Model ${m.id}`,
              icon: (
                <Stack spacing={0.5} sx={{ alignItems: 'center', px: 1, textAlign: 'center' }}>
                  <Face6OutlinedIcon />
                  {m.model ? (
                    <>
                      <Chip size="small" label={m.model.format.toUpperCase()} />
                      <Typography variant="caption" sx={{ lineHeight: 1.2 }}>
                        {m.model.lipSync === 'none' ? 'No lip-sync' : LIP_SYNC[m.model.lipSync]}
                      </Typography>
                    </>
                  ) : null}
                </Stack>
              ),
            }))}
            selectedId={own.find((m) => m.url === chosen && draft.dhType === dhType) ? `model:${own.find((m) => m.url === chosen)!.id}` : null}
            onSelect={(id) => {
              const item = own.find((m) => `model:${m.id}` === id);
              if (item) choose(item.url, item.model?.format ?? (/\.vrm$/i.test(item.name ?? '') ? 'vrm' : 'glb'));
            }}
            disabled={isDisabled}
            aspectRatio="3 / 3.6"
            renderAction={(item) => {
              const model = own.find((m) => `model:${m.id}` === item.id);
              if (!model) return null;
              return <MediaDeleteAction name={item.name} disabled={isDisabled} onClick={() => media.setDoomed({ id: model.id, url: model.url })} />;
            }}
            trailing={
              <Box {...dropzone.getRootProps()} sx={{ display: 'flex' }}>
                <input {...dropzone.getInputProps()} aria-label="Upload your own 3D model" />
                <AddTile label="Upload model" hint=".vrm or .glb" icon={<CloudUploadOutlinedIcon />} onClick={() => undefined} disabled={isDisabled} aspectRatio="3 / 3.6" />
              </Box>
            }
          />
        </Stack>
      )}
      <ConfirmDialog
        open={media.doomed !== null}
        title="Delete Model"
        confirmLabel="Delete"
        cancelLabel="Cancel"
        tone="error"
        isBusy={media.isBusy}
        onCancel={() => media.setDoomed(null)}
        onConfirm={() => void remove()}
      >
        This 3D model will be deleted. An avatar using it goes back to its catalogue look.
      </ConfirmDialog>
    </Box>
  );
}
