import { Suspense, lazy, useMemo, useState } from 'react';
import Alert from '@mui/material/Alert';
import Box from '@mui/material/Box';
import Chip from '@mui/material/Chip';
import FormHelperText from '@mui/material/FormHelperText';
import Skeleton from '@mui/material/Skeleton';
import Tab from '@mui/material/Tab';
import Tabs from '@mui/material/Tabs';
import Typography from '@mui/material/Typography';
import AddPhotoAlternateOutlinedIcon from '@mui/icons-material/AddPhotoAlternateOutlined';
import LockOutlinedIcon from '@mui/icons-material/LockOutlined';
import MovieOutlinedIcon from '@mui/icons-material/MovieOutlined';
import { AvatarMessages, DhType } from '@persona/contract';
import type { TCreatorAccount } from '../../api/get-account-info';
import { useDefaultAvatars, type TCatalogAvatar } from '../../api/get-avatar-catalog';
import { useCustomAvatars } from '../../api/get-custom-avatars';
import { parentConfigOf, readOwnModel, sameConfigUrl, selectAppearance } from '../../lib/avatar-config';
import { toFetchable } from '../../lib/hosting';
import { AddTile, ThumbnailGrid } from '../thumbnail-grid';
import { canHaveImageAvatars } from '../image-avatar-plans';

const ImageAvatarDialog = lazy(() => import('../image-avatar-dialog').then((m) => ({ default: m.ImageAvatarDialog })));
import { useEditorSession } from './editor-session';
import { OwnModels } from './own-models';

type SubTab = 'image' | 'upperBody' | 'fullBody' | 'video';
const SUB_TABS: { value: SubTab; label: string; dhType: number }[] = [
  { value: 'image', label: 'IMAGE AVATARS', dhType: DhType.Image },
  { value: 'upperBody', label: 'UPPER BODY 3D', dhType: DhType.UpperBody3D },
  { value: 'fullBody', label: 'FULL BODY 3D', dhType: DhType.FullBody3D },
  { value: 'video', label: 'VIDEO AVATARS', dhType: DhType.Video },
];

const subTabFor = (dhType: number): SubTab => SUB_TABS.find((t) => t.dhType === dhType)?.value ?? 'upperBody';

export function AppearanceTab({ account }: { account: TCreatorAccount | undefined }) {
  const session = useEditorSession();
  const { draft, updateDraft, isAvatarSelfHosted, hasTriedCreate, mode } = session;
  const [subTab, setSubTab] = useState<SubTab>(subTabFor(draft.dhType));
  const [isImageDialogOpen, setIsImageDialogOpen] = useState(false);
  const catalog = useDefaultAvatars(account?.defaultAvatarsList ? toFetchable(account.defaultAvatarsList) : undefined);
  const custom = useCustomAvatars(account?.customAvatarsJsonUrl ? toFetchable(account.customAvatarsJsonUrl) : undefined);
  const plan = account?.licenses.webgl.subscriptionType ?? 0;
  const parent = parentConfigOf(draft.avatarConfig);

  const items = useMemo((): TCatalogAvatar[] => {
    if (!catalog.data) return [];
    if (subTab === 'image') return [...(custom.data ?? []), ...catalog.data.image];
    return catalog.data[subTab];
  }, [catalog.data, custom.data, subTab]);

  const select = (item: TCatalogAvatar) => {
    if (item.dhType === DhType.Image && !canHaveImageAvatars(plan)) {
      setIsImageDialogOpen(true);
      return;
    }
    updateDraft((current) => ({
      dhType: item.dhType,
      avatarConfig: selectAppearance(current.avatarConfig, item.avatarConfigURL, current.dhType === item.dhType),
      // A new avatar is named after its look until the user types a name.
      name: mode.kind === 'create' && !current.name.trim() ? item.name.replace(/\s*\(.*\)$/, '') : current.name,
    }));
  };

  const hasOwnModel = readOwnModel(draft.avatarConfig) !== '';
  const selected = hasOwnModel ? undefined : items.find((item) => sameConfigUrl(item.avatarConfigURL, parent));
  const showRequired = mode.kind === 'create' && hasTriedCreate && !parent;
  const isLocked = (item: TCatalogAvatar) => item.dhType === DhType.Image && !canHaveImageAvatars(plan);

  return (
    <Box>
      <Tabs
        value={subTab}
        onChange={(_e, value: SubTab) => setSubTab(value)}
        variant="scrollable"
        allowScrollButtonsMobile
        aria-label="Avatar types"
        sx={{ mb: 2, borderBottom: 1, borderColor: 'divider', '& .MuiTab-root': { fontWeight: 700, fontSize: '0.78rem', minWidth: 0, px: 1.5 } }}
      >
        {SUB_TABS.map((t) => (
          <Tab key={t.value} value={t.value} label={t.label} />
        ))}
      </Tabs>

      {isAvatarSelfHosted ? (
        <Alert severity="info" sx={{ mb: 2 }}>
          This avatar uses a self-hosted config file, so its appearance cannot be changed here. Transfer the configuration file hosting (Save
          in the EMBED tab) to choose a new look.
        </Alert>
      ) : null}

      {subTab === 'video' ? (
        <Box sx={{ py: 6, textAlign: 'center', border: '2px dashed', borderColor: 'divider', borderRadius: 3 }}>
          <MovieOutlinedIcon color="disabled" sx={{ fontSize: 48 }} aria-hidden />
          <Typography variant="h5" sx={{ mt: 1 }}>
            Coming Soon
          </Typography>
          <Typography color="text.secondary" sx={{ mt: 0.5 }}>
            Video avatars arrive in Q2 2025, for PRO and ENTERPRISE plans first.
          </Typography>
        </Box>
      ) : catalog.isPending ? (
        <Box sx={{ display: 'grid', gridTemplateColumns: 'repeat(auto-fill, minmax(120px, 1fr))', gap: 1.5 }}>
          {Array.from({ length: 6 }, (_, i) => (
            <Skeleton key={i} variant="rounded" sx={{ aspectRatio: '3 / 4.4', height: 'auto' }} />
          ))}
        </Box>
      ) : catalog.isError ? (
        <Alert severity="error">The avatar list could not be loaded. Please reload the page.</Alert>
      ) : (
        <>
          {subTab === 'image' ? (
            <Typography variant="body2" color="text.secondary" sx={{ mb: 1.5 }}>
              Your own image avatars come first. Upload a face photo to have a new one made (PRO and ENTERPRISE).
            </Typography>
          ) : null}
          <ThumbnailGrid
            label={SUB_TABS.find((t) => t.value === subTab)?.label ?? ''}
            items={items.map((item) => ({
              id: item.id,
              name: item.name,
              thumbnail: toFetchable(item.thumbnail),
              badge: isLocked(item) ? <Chip size="small" icon={<LockOutlinedIcon />} label="PRO" color="warning" sx={{ fontWeight: 700 }} /> : undefined,
            }))}
            selectedId={selected?.id ?? null}
            onSelect={(id) => {
              const item = items.find((i) => i.id === id);
              if (item) select(item);
            }}
            disabled={isAvatarSelfHosted}
            aspectRatio="3 / 3.6"
            trailing={
              subTab === 'image' ? (
                <AddTile
                  label="Upload image avatar"
                  hint="From one face photo"
                  icon={<AddPhotoAlternateOutlinedIcon />}
                  onClick={() => setIsImageDialogOpen(true)}
                  aspectRatio="3 / 3.6"
                />
              ) : null
            }
          />
          {items.length === 0 && subTab !== 'image' ? <Typography color="text.secondary">No avatars of this type yet.</Typography> : null}
          {subTab === 'upperBody' || subTab === 'fullBody' ? (
            <OwnModels dhType={subTab === 'upperBody' ? DhType.UpperBody3D : DhType.FullBody3D} firstParentOfType={items[0]?.avatarConfigURL} />
          ) : null}
        </>
      )}
      {showRequired ? (
        <FormHelperText error sx={{ mt: 1.5, fontSize: '0.875rem' }} role="alert">
          {AvatarMessages.selectionRequired}
        </FormHelperText>
      ) : null}
      {isImageDialogOpen ? (
        <Suspense fallback={null}>
        <ImageAvatarDialog
          open
          onClose={() => setIsImageDialogOpen(false)}
          subscriptionType={plan}
          requestedSubType={account?.requestedSubType ?? null}
          accountEmail={account?.Email ?? ''}
          contactEmail={account?.contactEmail}
        />
        </Suspense>
      ) : null}
    </Box>
  );
}
