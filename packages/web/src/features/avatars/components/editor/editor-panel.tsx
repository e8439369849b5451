import { Suspense, lazy } from 'react';
import { Link as RouterLink } from 'react-router';
import { useQuery } from '@tanstack/react-query';
import Alert from '@mui/material/Alert';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import Chip from '@mui/material/Chip';
import Link from '@mui/material/Link';
import Paper from '@mui/material/Paper';
import Skeleton from '@mui/material/Skeleton';
import Tab from '@mui/material/Tab';
import Tabs from '@mui/material/Tabs';
import TextField from '@mui/material/TextField';
import Typography from '@mui/material/Typography';
import CloseIcon from '@mui/icons-material/Close';
import Face6OutlinedIcon from '@mui/icons-material/Face6Outlined';
import PersonOutlineIcon from '@mui/icons-material/PersonOutlineOutlined';
import SaveOutlinedIcon from '@mui/icons-material/SaveOutlined';
import { AvatarLimits, AvatarMessages, DhTypeName, ErrorMessages, type TDhType } from '@persona/contract';
import { ConfirmDialog } from '../../../../components/confirm-dialog';
import { AVATAR_IFRAME_ALLOW } from '../../../../lib/embed';
import { paths } from '../../../../lib/paths';
import type { TCreatorAccount } from '../../api/get-account-info';
import { useDefaultAvatars } from '../../api/get-avatar-catalog';
import { useCustomAvatars } from '../../api/get-custom-avatars';
import { parentConfigOf, readOwnModel, sameConfigUrl } from '../../lib/avatar-config';
import { NEW_AVATAR_LIMITS_TEXT } from '../../lib/advanced-form';
import { EDITOR_SIDE_SLOT_ID, EDITOR_TABS, type EditorTab } from '../../lib/editor-model';
import { toFetchable } from '../../lib/hosting';
import { previewUrl } from '../../lib/preview';
import { AppearanceTab } from './appearance-tab';
import { TAB_CONFIRM_TEXT, useEditorSession } from './editor-session';

// Only APPEARANCE is needed to create; the other tabs load when first opened.
const EnvironmentTab = lazy(() => import('./environment-tab').then((m) => ({ default: m.EnvironmentTab })));
const BrainTab = lazy(() => import('./brain-tab').then((m) => ({ default: m.BrainTab })));
const AdvancedTab = lazy(() => import('./advanced-tab').then((m) => ({ default: m.AdvancedTab })));
const EmbedTab = lazy(() => import('./embed-tab').then((m) => ({ default: m.EmbedTab })));

export interface EditorPanelProps {
  account: TCreatorAccount | undefined;
  onClose: () => void;
}

export function SaveFailureBanner() {
  const { failure, dismissFailure } = useEditorSession();
  if (failure === 'limit') {
    return (
      <Alert severity="error" onClose={dismissFailure} sx={{ mb: 2 }}>
        You have reached the maximum number of avatars for your plan. Please{' '}
        <Link component={RouterLink} to={paths.account} sx={{ fontWeight: 700 }}>
          upgrade
        </Link>{' '}
        to create more.
      </Alert>
    );
  }
  if (failure === 'stale') {
    return (
      <Alert
        severity="warning"
        sx={{ mb: 2 }}
        action={
          <Button color="inherit" size="small" variant="outlined" onClick={() => window.location.reload()}>
            Reload Page
          </Button>
        }
      >
        {ErrorMessages.staleRequest}
      </Alert>
    );
  }
  return null;
}

/** Whether the avatar page answers (it is served by the live-avatar part of the product). */
function usePreviewAvailable(id: number | undefined) {
  return useQuery({
    queryKey: ['avatars', 'preview-available', id],
    queryFn: async () => (await fetch(`/avatar/${id}`, { method: 'HEAD' })).ok,
    enabled: id !== undefined,
    staleTime: 60_000,
    retry: false,
  });
}

function Preview({ account }: { account: TCreatorAccount | undefined }) {
  const { mode, agent, draft, loadedVersion } = useEditorSession();
  const available = usePreviewAvailable(mode.kind === 'edit' ? agent?.id : undefined);
  const catalog = useDefaultAvatars(account?.defaultAvatarsList ? toFetchable(account.defaultAvatarsList) : undefined);
  const custom = useCustomAvatars(account?.customAvatarsJsonUrl ? toFetchable(account.customAvatarsJsonUrl) : undefined);
  const parent = parentConfigOf(draft.avatarConfig);
  const all = [...(custom.data ?? []), ...(catalog.data ? [...catalog.data.image, ...catalog.data.upperBody, ...catalog.data.fullBody] : [])];
  // An avatar wearing its own uploaded model keeps a catalogue look as its parent: not its picture.
  const isOwnModel = readOwnModel(draft.avatarConfig) !== '';
  const chosen = isOwnModel ? undefined : all.find((item) => sameConfigUrl(item.avatarConfigURL, parent));
  return (
    <Box>
      <Typography variant="overline" color="text.secondary" sx={{ fontWeight: 700, lineHeight: 1.5, display: 'block', mb: 0.75 }}>
        {mode.kind === 'edit' ? 'Live preview' : 'Selected appearance'}
      </Typography>
      <Box
        sx={{
          height: AvatarLimits.previewHeightPx,
          borderRadius: 2.5,
          overflow: 'hidden',
          border: 1,
          borderColor: 'divider',
          bgcolor: '#0f172a',
          display: 'grid',
          placeItems: 'center',
        }}
      >
        {mode.kind === 'edit' && agent && available.data ? (
          <Box
            component="iframe"
            title="Avatar preview"
            src={previewUrl(agent.id, agent.token, loadedVersion)}
            allow={AVATAR_IFRAME_ALLOW}
            sx={{ width: '100%', height: AvatarLimits.previewHeightPx, border: 0, display: 'block', bgcolor: '#fff' }}
          />
        ) : chosen ? (
          <Box sx={{ position: 'relative', alignSelf: 'stretch', justifySelf: 'stretch', overflow: 'hidden' }}>
            <Box component="img" src={toFetchable(chosen.thumbnail)} alt={chosen.name} sx={{ position: 'absolute', inset: 0, height: '100%', width: '100%', objectFit: 'cover', bgcolor: 'grey.100', display: 'block' }} />
            {mode.kind === 'edit' && available.isFetched ? (
              <Typography
                variant="caption"
                sx={{ position: 'absolute', left: 0, right: 0, bottom: 0, px: 1.5, py: 0.75, bgcolor: 'rgba(15,23,42,0.72)', color: '#fff', textAlign: 'center' }}
              >
                The live preview appears here once the avatar page is available.
              </Typography>
            ) : null}
          </Box>
        ) : (
          <Box sx={{ textAlign: 'center', color: 'rgba(226,232,240,0.8)', px: 2 }}>
            {isOwnModel ? <Face6OutlinedIcon sx={{ fontSize: 44 }} aria-hidden /> : <PersonOutlineIcon sx={{ fontSize: 44 }} aria-hidden />}
            <Typography variant="body2">{isOwnModel ? 'Your own 3D model: the live preview shows it once the avatar page is available.' : 'Choose an appearance from the grid.'}</Typography>
          </Box>
        )}
      </Box>
      {mode.kind === 'edit' ? (
        <Typography variant="caption" color="text.secondary" sx={{ display: 'block', mt: 0.75 }}>
          Shows the saved avatar; save to see your changes.
        </Typography>
      ) : null}
    </Box>
  );
}

export function EditorPanel({ account, onClose }: EditorPanelProps) {
  const session = useEditorSession();
  const { mode, agent, draft, updateDraft, tab, changeTab, isDirty, isSaving, dialogs, hasTriedCreate } = session;
  const isEdit = mode.kind === 'edit';
  const tabsEnabled = isEdit && account !== undefined;
  const name = draft.name.trim() || agent?.name || 'this avatar';

  return (
    <Paper variant="outlined" sx={{ p: { xs: 2, md: 2.5 }, minWidth: 0 }} aria-label={isEdit ? 'Edit avatar' : 'Create avatar'} component="section">
      <Box sx={{ display: 'flex', alignItems: 'flex-start', gap: 2, mb: 2, flexWrap: 'wrap' }}>
        <Box sx={{ flex: 1, minWidth: 220 }}>
          <Typography variant="h4" component="h2">
            {isEdit ? `Edit ${agent?.name ?? ''}` : 'Create Avatar'}
          </Typography>
          <Box sx={{ display: 'flex', gap: 1, mt: 0.75, flexWrap: 'wrap', alignItems: 'center' }}>
            {isEdit && agent ? (
              <>
                <Chip size="small" label={`ID ${agent.id}`} variant="outlined" />
                <Chip size="small" label={DhTypeName[agent.dhType as TDhType] ?? agent.dhTypeName} variant="outlined" />
                {isDirty ? <Chip size="small" color="warning" label="Unsaved changes" /> : null}
              </>
            ) : (
              <Typography variant="body2" color="text.secondary">
                Pick an appearance, name your avatar, then click CREATE AVATAR.
              </Typography>
            )}
          </Box>
        </Box>
        <Box sx={{ display: 'flex', gap: 1 }}>
          <Button color="inherit" startIcon={<CloseIcon />} onClick={onClose}>
            Close
          </Button>
          {isEdit ? (
            <Button variant="contained" startIcon={<SaveOutlinedIcon />} onClick={session.requestSave} disabled={isSaving}>
              {isSaving ? 'Saving…' : 'Save'}
            </Button>
          ) : null}
        </Box>
      </Box>

      <SaveFailureBanner />

      {mode.kind === 'create' ? (
        <TextField
          label="Avatar Name"
          value={draft.name}
          onChange={(e) => updateDraft({ name: e.target.value })}
          error={hasTriedCreate && !draft.name.trim()}
          helperText={hasTriedCreate && !draft.name.trim() ? AvatarMessages.nameRequired : undefined}
          size="small"
          sx={{ mb: 2, width: { xs: '100%', sm: 360 } }}
          slotProps={{ htmlInput: { maxLength: AvatarLimits.nameMax } }}
        />
      ) : null}
      {mode.kind === 'create' ? (
        <Typography variant="body2" color="text.secondary" sx={{ mt: -1, mb: 2 }} data-testid="new-avatar-limits">
          {NEW_AVATAR_LIMITS_TEXT}
        </Typography>
      ) : null}

      <Tabs
        value={tab}
        onChange={(_e, next: EditorTab) => void changeTab(next)}
        variant="scrollable"
        allowScrollButtonsMobile
        aria-label="Avatar settings"
        sx={{
          mb: 2.5,
          minHeight: 44,
          bgcolor: 'grey.100',
          borderRadius: 2.5,
          p: 0.5,
          '& .MuiTabs-flexContainer': { gap: 0.5 },
          '& .MuiTab-root': { fontWeight: 700, minHeight: 40, px: 2.5, borderRadius: 2, zIndex: 1, flex: { md: 1 } },
          '& .MuiTab-root.Mui-selected': { color: 'primary.main' },
          '& .MuiTabs-indicator': { height: '100%', borderRadius: 2, bgcolor: 'background.paper', boxShadow: '0 1px 3px rgba(16,24,40,0.12)', zIndex: 0 },
        }}
      >
        {EDITOR_TABS.map((t) => (
          <Tab key={t.value} value={t.value} label={t.label} disabled={t.value !== 'appearance' && !tabsEnabled} sx={{ textTransform: 'none' }} />
        ))}
      </Tabs>
      <Box sx={{ display: 'grid', gap: 3, gridTemplateColumns: { xs: '1fr', lg: `minmax(0, 1fr) ${AvatarLimits.previewHeightPx + 20}px` }, alignItems: 'start' }}>
        <Box role="tabpanel" aria-label={EDITOR_TABS.find((t) => t.value === tab)?.label} sx={{ minWidth: 0 }}>
          <Suspense fallback={<Skeleton variant="rounded" height={320} />}>
            {tab === 'appearance' ? <AppearanceTab account={account} /> : null}
            {tab === 'environment' ? <EnvironmentTab account={account} /> : null}
            {tab === 'brain' ? <BrainTab /> : null}
            {tab === 'advanced' ? <AdvancedTab account={account} /> : null}
            {tab === 'embed' ? <EmbedTab /> : null}
          </Suspense>
        </Box>
        <Box sx={{ position: { lg: 'sticky' }, top: { lg: 88 }, order: { xs: -1, lg: 0 } }}>
          <Preview account={account} />
          {/* A tab's right-hand panel (the Brain tab's field help) is portalled here on wide screens. */}
          <Box id={EDITOR_SIDE_SLOT_ID} sx={{ mt: 2, '&:empty': { display: 'none' } }} />
        </Box>
      </Box>

      <ConfirmDialog
        open={dialogs.confirmOpen}
        title="Confirm Update"
        confirmLabel="Update"
        cancelLabel="Cancel"
        onConfirm={() => dialogs.answerConfirm(true)}
        onCancel={() => dialogs.answerConfirm(false)}
      >
        {TAB_CONFIRM_TEXT[tab](name)}
      </ConfirmDialog>
      <ConfirmDialog
        open={dialogs.transferOpen}
        title="Transfer Configuration File Hosting"
        confirmLabel="Yes"
        cancelLabel="No"
        onConfirm={() => dialogs.answerTransfer(true)}
        onCancel={() => dialogs.answerTransfer(false)}
      >
        This avatar&apos;s configuration is hosted outside Persona Studio. Transfer the hosting to Persona Studio so you can edit it here? With No,
        the other changes are saved and the self-hosted files stay as they are.
      </ConfirmDialog>
    </Paper>
  );
}
