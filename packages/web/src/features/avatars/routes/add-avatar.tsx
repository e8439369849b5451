import { useState } from 'react';
import { Link as RouterLink, useNavigate } from 'react-router';
import Alert from '@mui/material/Alert';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import FormHelperText from '@mui/material/FormHelperText';
import Paper from '@mui/material/Paper';
import Skeleton from '@mui/material/Skeleton';
import Stack from '@mui/material/Stack';
import Tab from '@mui/material/Tab';
import Tabs from '@mui/material/Tabs';
import TextField from '@mui/material/TextField';
import Typography from '@mui/material/Typography';
import ArrowBackIcon from '@mui/icons-material/ArrowBack';
import { AvatarLimits, AvatarMessages, NlpEngine, SetupMode } from '@persona/contract';
import { PageContainer } from '../../../components/page-container';
import { PageHeader } from '../../../components/page-header';
import { paths } from '../../../lib/paths';
import { showToast } from '../../../lib/toast';
import { useDocumentTitle } from '../../../lib/use-document-title';
import { useAccountInfo } from '../api/get-account-info';
import { useDefaultAvatars, type TCatalogAvatar } from '../api/get-avatar-catalog';
import { useCreateAvatar } from '../api/create-avatar';
import { NEW_AVATAR_DEFAULTS, NEW_AVATAR_LIMITS_TEXT } from '../lib/advanced-form';
import { prettyJson } from '../lib/avatar-config';
import { ERROR_TOAST_MS, SUCCESS_TOAST_MS } from '../lib/editor-model';
import { toFetchable } from '../lib/hosting';
import { saveFailureOf } from '../lib/save-errors';
import { ThumbnailGrid } from '../components/thumbnail-grid';

/** /addavatar: creating an avatar on a phone (name + appearance), through /api/add_avatar. */
export function AddAvatarRoute() {
  useDocumentTitle('Add Avatar');
  const navigate = useNavigate();
  const account = useAccountInfo();
  const catalog = useDefaultAvatars(account.data?.defaultAvatarsList ? toFetchable(account.data.defaultAvatarsList) : undefined);
  const create = useCreateAvatar();
  const [type, setType] = useState<'upperBody' | 'fullBody'>('upperBody');
  const [chosen, setChosen] = useState<TCatalogAvatar | null>(null);
  const [name, setName] = useState('');
  const [hasTried, setHasTried] = useState(false);
  const [limitReached, setLimitReached] = useState(false);
  const items = catalog.data?.[type] ?? [];

  const submit = () => {
    setHasTried(true);
    if (!chosen) {
      void showToast(AvatarMessages.selectOnSubmit, 'error', { autoHideDurationMs: ERROR_TOAST_MS });
      return;
    }
    if (!name.trim()) return;
    create.mutate(
      {
        name: name.trim(),
        nlpEngine: NlpEngine.EchoTest,
        dhType: chosen.dhType,
        setupMode: SetupMode.Simple,
        wakeUpMessage: NEW_AVATAR_DEFAULTS.wakeUpMessage,
        dailyLimitPerSession: NEW_AVATAR_DEFAULTS.dailyLimitPerSession,
        dailyLimitPerIP: NEW_AVATAR_DEFAULTS.dailyLimitPerIP,
        dailyLimits: { Demo: NEW_AVATAR_DEFAULTS.demoLimit },
        idleTimeout: NEW_AVATAR_DEFAULTS.idleTimeout,
        avatarJson: prettyJson({ ParentConfig: chosen.avatarConfigURL }),
      },
      {
        onSuccess: () => {
          void showToast(AvatarMessages.created, 'success', { autoHideDurationMs: SUCCESS_TOAST_MS });
          void navigate(paths.avatars);
        },
        onError: (error) => {
          const failure = saveFailureOf(error);
          if (failure.kind === 'limit') setLimitReached(true);
          else if (failure.kind === 'toast') void showToast(failure.message, 'error', { autoHideDurationMs: ERROR_TOAST_MS });
        },
      },
    );
  };

  return (
    <PageContainer maxWidth="md">
      <PageHeader
        title="Add Avatar"
        description="Name your avatar and pick its look. It starts in echo-back mode; set up its brain from a computer."
        actions={
          <Button component={RouterLink} to={paths.avatars} startIcon={<ArrowBackIcon />} color="inherit">
            Your Avatars
          </Button>
        }
      />
      <Paper variant="outlined" sx={{ p: { xs: 2, sm: 3 } }}>
        <Stack spacing={2.5}>
          {limitReached ? (
            <Alert severity="error" onClose={() => setLimitReached(false)}>
              You have reached the maximum number of avatars for your plan. Please{' '}
              <Box component={RouterLink} to={paths.account} sx={{ color: 'inherit', fontWeight: 700 }}>
                upgrade
              </Box>{' '}
              to create more.
            </Alert>
          ) : null}
          <TextField
            label="Avatar Name"
            value={name}
            onChange={(e) => setName(e.target.value)}
            error={hasTried && !name.trim()}
            helperText={hasTried && !name.trim() ? AvatarMessages.nameRequired : undefined}
            fullWidth
            slotProps={{ htmlInput: { maxLength: AvatarLimits.nameMax } }}
          />
          <Tabs value={type} onChange={(_e, v: 'upperBody' | 'fullBody') => setType(v)} variant="fullWidth" aria-label="Avatar types">
            <Tab value="upperBody" label="UPPER BODY 3D" />
            <Tab value="fullBody" label="FULL BODY 3D" />
          </Tabs>
          {catalog.isPending ? (
            <Skeleton variant="rounded" height={220} />
          ) : (
            <ThumbnailGrid
              label="Appearances"
              items={items.map((i) => ({ id: i.id, name: i.name, thumbnail: toFetchable(i.thumbnail) }))}
              selectedId={chosen?.id ?? null}
              onSelect={(id) => {
                const item = items.find((i) => i.id === id) ?? null;
                setChosen(item);
                if (item && !name.trim()) setName(item.name);
              }}
              minWidth={100}
              aspectRatio="3 / 3.6"
            />
          )}
          {hasTried && !chosen ? <FormHelperText error>{AvatarMessages.selectionRequired}</FormHelperText> : null}
          <Typography variant="body2" color="text.secondary" data-testid="new-avatar-limits">
            {NEW_AVATAR_LIMITS_TEXT}
          </Typography>
          <Button variant="contained" size="large" onClick={submit} disabled={create.isPending} fullWidth>
            {create.isPending ? 'Creating...' : 'CREATE AVATAR'}
          </Button>
        </Stack>
      </Paper>
    </PageContainer>
  );
}
