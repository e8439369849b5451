import { useState } from 'react';
import { useDropzone, type Accept } from 'react-dropzone';
import Alert from '@mui/material/Alert';
import Box from '@mui/material/Box';
import Checkbox from '@mui/material/Checkbox';
import FormControlLabel from '@mui/material/FormControlLabel';
import InputAdornment from '@mui/material/InputAdornment';
import LinearProgress from '@mui/material/LinearProgress';
import Stack from '@mui/material/Stack';
import Step from '@mui/material/Step';
import StepButton from '@mui/material/StepButton';
import Stepper from '@mui/material/Stepper';
import Tab from '@mui/material/Tab';
import Tabs from '@mui/material/Tabs';
import TextField from '@mui/material/TextField';
import ToggleButton from '@mui/material/ToggleButton';
import ToggleButtonGroup from '@mui/material/ToggleButtonGroup';
import Typography from '@mui/material/Typography';
import BlockIcon from '@mui/icons-material/Block';
import CloudUploadOutlinedIcon from '@mui/icons-material/CloudUploadOutlined';
import LightModeOutlinedIcon from '@mui/icons-material/LightModeOutlined';
import MovieOutlinedIcon from '@mui/icons-material/MovieOutlined';
import ViewInArOutlinedIcon from '@mui/icons-material/ViewInArOutlined';
import { AvatarMedia, AvatarMessages } from '@persona/contract';
import { ConfirmDialog } from '../../../../components/confirm-dialog';
import { showToast } from '../../../../lib/toast';
import type { TCreatorAccount } from '../../api/get-account-info';
import { useEnvironments } from '../../api/get-environments';
import {
  isTransparent,
  readLightPreset,
  readPanel,
  readSceneModel,
  setBackground,
  setBgColor,
  setLight,
  setPanelEnabled,
  setSceneModel,
  setTransparent,
  type TAvatarConfig,
} from '../../lib/avatar-config';
import { ERROR_TOAST_MS, isFullBody, isUpperBody } from '../../lib/editor-model';
import { toFetchable } from '../../lib/hosting';
import { AddTile, ThumbnailGrid, type ThumbnailItem } from '../thumbnail-grid';
import { useEditorSession } from './editor-session';
import { useEffectiveConfig } from './use-effective-config';
import { MediaDeleteAction, useMediaActions } from './use-media-actions';

export const FULL_BODY_BACKGROUND_LOCK = 'This background can only be applied to Upper Body avatars. Full body avatars use a 3D environment instead.';
export const TRANSPARENT_BACKGROUND_LOCK = 'To set an avatar background, uncheck the transparency option.';

type Kind = 'image' | 'video' | 'scene';
/** The contract's media types and limits (the server applies the same ones). */
const MEDIA = { image: AvatarMedia.backgroundImage, video: AvatarMedia.backgroundVideo, scene: AvatarMedia.scene } as const;
const ACCEPT: Record<Kind, Accept> = {
  image: MEDIA.image.types,
  video: MEDIA.video.types,
  // Browsers that do not know .glb report it as application/octet-stream; the server reads the content.
  scene: { ...MEDIA.scene.types, 'application/octet-stream': ['.glb'] },
};
const LIMITS: Record<Kind, { mb: number; label: string }> = {
  image: { mb: MEDIA.image.maxMb, label: MEDIA.image.label },
  video: { mb: MEDIA.video.maxMb, label: MEDIA.video.label },
  scene: { mb: MEDIA.scene.maxMb, label: MEDIA.scene.label },
};
const extensions = (kind: Kind) => [...new Set(Object.values(MEDIA[kind].types).map((exts) => exts[0]))].join(' or ');

export function EnvironmentTab({ account }: { account: TCreatorAccount | undefined }) {
  const [subTab, setSubTab] = useState<'background' | 'scene'>(() => 'background');
  return (
    <Box>
      <Tabs
        value={subTab}
        onChange={(_e, v: 'background' | 'scene') => setSubTab(v)}
        aria-label="Environment"
        sx={{ mb: 2, borderBottom: 1, borderColor: 'divider', '& .MuiTab-root': { fontWeight: 700, fontSize: '0.78rem', minWidth: 0, px: 1.5 } }}
      >
        <Tab value="background" label="Background" />
        <Tab value="scene" label="3D Environment" />
      </Tabs>
      {subTab === 'background' ? <BackgroundPanel account={account} /> : <ScenePanel account={account} />}
    </Box>
  );
}

function UploadProgress({ progress }: { progress: number | null }) {
  if (progress === null) return null;
  return (
    <Box sx={{ mb: 2 }} role="status" aria-live="polite">
      <Typography variant="body2" color="text.secondary" sx={{ mb: 0.5 }}>
        Uploading... {progress}%
      </Typography>
      <LinearProgress variant="determinate" value={progress} />
    </Box>
  );
}

function UploadTile({ kind, onFile, disabled }: { kind: Kind; onFile: (file: File) => void; disabled: boolean }) {
  const accept = ACCEPT[kind];
  const dropzone = useDropzone({
    accept,
    multiple: false,
    disabled,
    noClick: false,
    onDropAccepted: ([file]) => file && onFile(file),
    onDropRejected: ([rejection]) =>
      void showToast(
        rejection?.errors.some((e) => e.code === 'file-too-large')
          ? `❌ ${AvatarMessages.fileTooBig(LIMITS[kind].mb, LIMITS[kind].label)}`
          : '❌ Invalid file type or file exceeds size limit.',
        'error',
        { autoHideDurationMs: ERROR_TOAST_MS },
      ),
  });
  const hint = `${kind === 'image' ? '16:9 ' : ''}${extensions(kind)}, up to ${LIMITS[kind].mb} MB`;
  return (
    <Box {...dropzone.getRootProps()} sx={{ display: 'flex' }}>
      <input {...dropzone.getInputProps()} aria-label={`Upload ${kind === 'scene' ? '3D environment' : `background ${kind}`}`} />
      <AddTile label="Upload" hint={hint} icon={<CloudUploadOutlinedIcon />} onClick={() => undefined} disabled={disabled} aspectRatio="16 / 9" />
    </Box>
  );
}


const NONE_ID = '__none__';

function BackgroundPanel({ account }: { account: TCreatorAccount | undefined }) {
  const session = useEditorSession();
  const { draft, updateDraft, agent, isAvatarSelfHosted } = session;
  const [step, setStep] = useState(0);
  const [kind, setKind] = useState<'image' | 'video'>('image');
  const envs = useEnvironments(account?.defaultEnvsListUrl ? toFetchable(account.defaultEnvsListUrl) : undefined);
  const effective = useEffectiveConfig(draft.avatarConfig);
  const media = useMediaActions();
  const panel = readPanel(effective);
  const transparent = isTransparent(effective);
  const fullBody = isFullBody(draft.dhType);
  const change = (fn: (c: TAvatarConfig) => TAvatarConfig) => updateDraft((d) => ({ avatarConfig: fn(d.avatarConfig) }));

  const own = (agent?.mediaDetails.backgroundImage ?? []).filter((m) => (kind === 'video' ? m.type?.startsWith('video/') : !m.type?.startsWith('video/')));
  const catalog = kind === 'image' ? (envs.data?.env2d ?? []) : (envs.data?.video ?? []);
  const items: ThumbnailItem[] = [
    { id: NONE_ID, name: 'No background', icon: <BlockIcon /> },
    ...catalog.map((e) => ({ id: `catalog:${e.url}`, name: e.name, thumbnail: toFetchable(e.thumbnail) })),
    ...own.map((m) => ({
      id: `media:${m.id}:${m.url}`,
      name: m.name ?? `Upload ${m.id}`,
      thumbnail: kind === 'image' ? m.url : undefined,
      icon: kind === 'video' ? <MovieOutlinedIcon /> : undefined,
    })),
  ];
  const selectedId = !panel.contentURL
    ? NONE_ID
    : (items.find((i) => i.id !== NONE_ID && i.id.endsWith(`:${panel.contentURL}`))?.id ?? (catalog.length || own.length ? null : null));
  const lockMessage = fullBody ? FULL_BODY_BACKGROUND_LOCK : transparent ? TRANSPARENT_BACKGROUND_LOCK : isAvatarSelfHosted ? 'This avatar uses a self-hosted config file: its background is set there.' : null;
  const isLocked = lockMessage !== null;

  return (
    <Box>
      <Stepper nonLinear activeStep={step} sx={{ mb: 3, maxWidth: 420 }}>
        <Step completed={false}>
          <StepButton onClick={() => setStep(0)}>Background</StepButton>
        </Step>
        <Step completed={false}>
          <StepButton onClick={() => setStep(1)}>Lighting</StepButton>
        </Step>
      </Stepper>

      {step === 0 ? (
        <Stack spacing={2.5}>
          <Box sx={{ display: 'flex', flexWrap: 'wrap', alignItems: 'center', gap: 2 }}>
            <TextField
              label="Background colour"
              size="small"
              value={panel.BgColor}
              disabled={isAvatarSelfHosted || fullBody}
              onChange={(e) => change((c) => setBgColor(c, e.target.value))}
              sx={{ width: 220 }}
              slotProps={{
                input: {
                  startAdornment: (
                    <InputAdornment position="start">
                      <Box
                        component="input"
                        type="color"
                        aria-label="Pick background colour"
                        value={/^#[0-9a-f]{6}$/i.test(panel.BgColor) ? panel.BgColor : '#ffffff'}
                        disabled={isAvatarSelfHosted || fullBody}
                        onChange={(e: React.ChangeEvent<HTMLInputElement>) => change((c) => setBgColor(c, e.target.value.toUpperCase()))}
                        sx={{ width: 28, height: 28, p: 0, border: 1, borderColor: 'divider', borderRadius: 1, cursor: 'pointer', bgcolor: 'transparent' }}
                      />
                    </InputAdornment>
                  ),
                },
              }}
            />
            <FormControlLabel
              control={<Checkbox checked={transparent} disabled={isAvatarSelfHosted} onChange={(e) => change((c) => setTransparent(c, e.target.checked))} />}
              label="Transparent"
            />
            <FormControlLabel
              control={<Checkbox checked={panel.Enable} disabled={isAvatarSelfHosted || fullBody} onChange={(e) => change((c) => setPanelEnabled(c, e.target.checked))} />}
              label="Enable Background"
            />
          </Box>

          <Box sx={{ display: 'flex', alignItems: 'center', justifyContent: 'space-between', gap: 2, flexWrap: 'wrap' }}>
            <ToggleButtonGroup exclusive size="small" value={kind} onChange={(_e, v: 'image' | 'video' | null) => v && setKind(v)} aria-label="Background type">
              <ToggleButton value="image" sx={{ px: 2, fontWeight: 700 }}>
                Image
              </ToggleButton>
              <ToggleButton value="video" sx={{ px: 2, fontWeight: 700 }}>
                Video
              </ToggleButton>
            </ToggleButtonGroup>
            <Typography variant="caption" color="text.secondary">
              {kind === 'image' ? 'Recommended: 16:9, .jpg or .png' : 'Recommended: .mp4 or .mov'}
            </Typography>
          </Box>

          {lockMessage ? <Alert severity="info">{lockMessage}</Alert> : null}
          <UploadProgress progress={media.progress} />
          <ThumbnailGrid
            label={kind === 'image' ? 'Background images' : 'Background videos'}
            items={items}
            selectedId={selectedId}
            disabled={isLocked}
            aspectRatio="16 / 9"
            minWidth={150}
            onSelect={(id) => {
              if (id === NONE_ID) change((c) => setBackground(c, ''));
              else change((c) => setBackground(c, id.replace(/^(catalog|media:\d+):/, '')));
            }}
            renderAction={(item) => {
              const match = /^media:(\d+):(.*)$/.exec(item.id);
              if (!match) return null;
              return (
                <MediaDeleteAction
                  name={item.name}
                  disabled={media.isBusy || isAvatarSelfHosted}
                  onClick={() => media.setDoomed({ id: Number(match[1]), url: match[2] ?? '' })}
                />
              );
            }}
            trailing={
              <UploadTile
                kind={kind}
                disabled={isLocked || media.isBusy}
                onFile={(file) => void media.send('backgroundImage', file, LIMITS[kind], (added) => change((c) => setBackground(c, added.url)))}
              />
            }
          />
        </Stack>
      ) : (
        <LightingStep account={account} />
      )}

      <ConfirmDialog
        open={media.doomed !== null}
        title="Delete Environment"
        confirmLabel="Delete"
        cancelLabel="Cancel"
        tone="error"
        isBusy={media.isBusy}
        onCancel={() => media.setDoomed(null)}
        onConfirm={() =>
          void media.remove((url) => {
            if (panel.contentURL === url) change((c) => setBackground(c, ''));
          })
        }
      >
        Are you sure you want to delete?
      </ConfirmDialog>
    </Box>
  );
}

function LightingStep({ account }: { account: TCreatorAccount | undefined }) {
  const { draft, updateDraft, isAvatarSelfHosted } = useEditorSession();
  const envs = useEnvironments(account?.defaultEnvsListUrl ? toFetchable(account.defaultEnvsListUrl) : undefined);
  const effective = useEffectiveConfig(draft.avatarConfig);
  const preset = readLightPreset(effective);
  const lights = envs.data?.light ?? [];
  const upper = isUpperBody(draft.dhType);
  return (
    <Stack spacing={2}>
      {!upper ? <Alert severity="info">Lighting applies only to Upper Body avatars.</Alert> : null}
      <ThumbnailGrid
        label="Lighting"
        items={lights.map((l) => ({ id: l.id, name: l.name, icon: <LightPresetIcon preset={l.preset} /> }))}
        selectedId={lights.find((l) => l.preset === preset)?.id ?? null}
        disabled={!upper || isAvatarSelfHosted}
        aspectRatio="16 / 9"
        minWidth={150}
        onSelect={(id) => {
          const light = lights.find((l) => l.id === id);
          if (light) updateDraft((d) => ({ avatarConfig: setLight(d.avatarConfig, light.preset, light.intensity) }));
        }}
      />
    </Stack>
  );
}

const LIGHT_COLOURS: Record<string, string> = {
  studio: 'linear-gradient(135deg, #eef2ff, #c7d2fe)',
  daylight: 'linear-gradient(135deg, #fefce8, #bae6fd)',
  warm: 'linear-gradient(135deg, #fff7ed, #fdba74)',
  cool: 'linear-gradient(135deg, #ecfeff, #a5b4fc)',
};

function LightPresetIcon({ preset }: { preset: string }) {
  return (
    <Box sx={{ width: '100%', height: '100%', display: 'grid', placeItems: 'center', background: LIGHT_COLOURS[preset] ?? LIGHT_COLOURS.studio }}>
      <LightModeOutlinedIcon sx={{ fontSize: 34, color: 'rgba(17,24,39,0.55)' }} />
    </Box>
  );
}

function ScenePanel({ account }: { account: TCreatorAccount | undefined }) {
  const session = useEditorSession();
  const { draft, updateDraft, agent, isAvatarSelfHosted } = session;
  const envs = useEnvironments(account?.defaultEnvsListUrl ? toFetchable(account.defaultEnvsListUrl) : undefined);
  const effective = useEffectiveConfig(draft.avatarConfig);
  const media = useMediaActions();
  const model = readSceneModel(effective);
  const full = isFullBody(draft.dhType);
  const change = (url: string) => updateDraft((d) => ({ avatarConfig: setSceneModel(d.avatarConfig, url) }));
  const own = agent?.mediaDetails.scene ?? [];
  const items: ThumbnailItem[] = [
    { id: NONE_ID, name: 'No 3D environment', icon: <BlockIcon /> },
    ...(envs.data?.env3d ?? []).map((e) => ({ id: `catalog:${e['gltf-model']}`, name: e.name, thumbnail: toFetchable(e.thumbnail) })),
    ...own.map((m) => ({ id: `media:${m.id}:${m.url}`, name: m.name ?? `Scene ${m.id}`, icon: <ViewInArOutlinedIcon /> })),
  ];
  const selectedId = !model ? NONE_ID : (items.find((i) => i.id !== NONE_ID && i.id.endsWith(`:${model}`))?.id ?? null);
  return (
    <Stack spacing={2}>
      {!full ? <Alert severity="info">3D environments apply only to Full Body avatars.</Alert> : null}
      {full && isAvatarSelfHosted ? <Alert severity="info">This avatar uses a self-hosted config file: its 3D environment is set there.</Alert> : null}
      <UploadProgress progress={media.progress} />
      <ThumbnailGrid
        label="3D environments"
        items={items}
        selectedId={selectedId}
        disabled={!full || isAvatarSelfHosted}
        aspectRatio="16 / 9"
        minWidth={150}
        onSelect={(id) => change(id === NONE_ID ? '' : id.replace(/^(catalog|media:\d+):/, ''))}
        renderAction={(item) => {
          const match = /^media:(\d+):(.*)$/.exec(item.id);
          if (!match) return null;
          return <MediaDeleteAction name={item.name} disabled={media.isBusy} onClick={() => media.setDoomed({ id: Number(match[1]), url: match[2] ?? '' })} />;
        }}
        trailing={<UploadTile kind="scene" disabled={!full || isAvatarSelfHosted || media.isBusy} onFile={(file) => void media.send('scene', file, LIMITS.scene, (added) => change(added.url))} />}
      />
      <ConfirmDialog
        open={media.doomed !== null}
        title="Delete Environment"
        confirmLabel="Delete"
        cancelLabel="Cancel"
        tone="error"
        isBusy={media.isBusy}
        onCancel={() => media.setDoomed(null)}
        onConfirm={() =>
          void media.remove((url) => {
            if (model === url) change('');
          })
        }
      >
        Are you sure you want to delete?
      </ConfirmDialog>
    </Stack>
  );
}
