import { useCallback, useMemo, useRef, useState } from 'react';
import { Link as RouterLink, useSearchParams } from 'react-router';
import { useQueryClient } from '@tanstack/react-query';
import Alert from '@mui/material/Alert';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import CircularProgress from '@mui/material/CircularProgress';
import InputAdornment from '@mui/material/InputAdornment';
import Paper from '@mui/material/Paper';
import Skeleton from '@mui/material/Skeleton';
import Stack from '@mui/material/Stack';
import TextField from '@mui/material/TextField';
import Typography from '@mui/material/Typography';
import AddIcon from '@mui/icons-material/Add';
import AutoAwesomeOutlinedIcon from '@mui/icons-material/AutoAwesomeOutlined';
import SearchIcon from '@mui/icons-material/Search';
import { AvatarLimits, AvatarMessages } from '@persona/contract';
import { ConfirmDialog } from '../../../components/confirm-dialog';
import { useSession } from '../../../lib/auth-store';
import { paths } from '../../../lib/paths';
import { useAccountInfo, type TCreatorAccount } from '../api/get-account-info';
import { forgetAvatar } from '../api/delete-avatar';
import { useAvatars } from '../api/list-avatars';
import { useDefaultAvatars } from '../api/get-avatar-catalog';
import { useCustomAvatars } from '../api/get-custom-avatars';
import { appearancePictureOf, hasOwnModel } from '../lib/appearance-picture';
import { toFetchable } from '../lib/hosting';
import { parentConfigOf, type TAvatarConfig } from '../lib/avatar-config';
import { AvatarCard } from './avatar-card';
import { CreatedDialog } from './created-dialog';
import { DeleteAvatarDialog } from './delete-avatar-dialog';
import { EditorPanel } from './editor/editor-panel';
import { EditorSessionProvider, useOptionalEditorSession, type EditorMode } from './editor/editor-session';
import { OnlineUsersDialog } from './online-users-dialog';
import { useInitialConfigs } from './use-initial-configs';
import type { TAvatar } from '@persona/contract';

/** Filters by avatar id substring (the showSearchBar=true search box). */
export function filterById(avatars: TAvatar[], query: string): TAvatar[] {
  const q = query.trim();
  return q ? avatars.filter((a) => String(a.id).includes(q)) : avatars;
}

export function AvatarListStatus({ isPending, isError, isEmpty, emptyText }: { isPending: boolean; isError: boolean; isEmpty: boolean; emptyText: string }) {
  if (isPending) {
    return (
      <Box role="status" sx={{ display: 'flex', alignItems: 'center', gap: 1.5, py: 3, justifyContent: 'center', color: 'text.secondary' }}>
        <CircularProgress size={20} />
        <Typography variant="body2">Fetching Agents...</Typography>
      </Box>
    );
  }
  if (isError) return <Alert severity="error">{AvatarMessages.agentsFailed}</Alert>;
  if (isEmpty) {
    return (
      <Paper variant="outlined" sx={{ p: 3, textAlign: 'center', borderStyle: 'dashed' }}>
        <AutoAwesomeOutlinedIcon color="primary" sx={{ fontSize: 36 }} aria-hidden />
        <Typography variant="body2" color="text.secondary" sx={{ mt: 1 }}>
          {emptyText}
        </Typography>
      </Paper>
    );
  }
  return null;
}

/** "1 of 1 avatars" under START; at the plan's limit START is off and says why, with the upgrade link. */
export function PlanUsage({ count, max }: { count: number; max: number | null }) {
  if (max === null) return null;
  const isAtLimit = count >= max;
  return (
    <>
      <Typography variant="body2" color={isAtLimit ? 'error' : 'text.secondary'} id="plan-usage" sx={{ textAlign: 'center', mt: -0.5 }}>
        {count} of {max} avatars
      </Typography>
      {isAtLimit ? (
        <Alert severity="warning" id="plan-limit">
          {AvatarMessages.limitReached} Please{' '}
          <Box component={RouterLink} to={paths.account} sx={{ color: 'inherit', fontWeight: 700 }}>
            upgrade
          </Box>{' '}
          to create more.
        </Alert>
      ) : null}
    </>
  );
}

export function AvatarCreator() {
  const auth = useSession();
  const avatars = useAvatars();
  const account = useAccountInfo();
  const [mode, setMode] = useState<EditorMode>({ kind: 'none' });
  const [created, setCreated] = useState<TAvatar | null>(null);
  const [expanded, setExpanded] = useState<Set<number>>(() => new Set());
  const found = mode.kind === 'edit' ? avatars.data?.find((a) => a.id === mode.id) : undefined;
  // The editor keeps its avatar while the list refetches (the cached list may be briefly empty).
  const lastAgent = useRef<TAvatar | undefined>(undefined);
  if (found) lastAgent.current = found;
  const agent = found ?? (mode.kind === 'edit' && lastAgent.current?.id === mode.id ? lastAgent.current : undefined);
  const initial = useInitialConfigs(mode, agent);
  const modeKey = mode.kind === 'edit' ? `edit-${mode.id}` : mode.kind;
  // A session starts once per opened avatar (or create) with the configs it found then.
  const [started, setStarted] = useState<{ key: string; avatarConfig: TAvatarConfig; clientConfig: TAvatarConfig | null } | null>(null);
  const canStart = mode.kind === 'create' || (mode.kind === 'edit' && initial.isReady && agent !== undefined);
  if (mode.kind !== 'none' && canStart && started?.key !== modeKey) {
    setStarted({ key: modeKey, avatarConfig: initial.avatarConfig, clientConfig: initial.clientConfig });
  }
  const isStarted = mode.kind !== 'none' && started?.key === modeKey;

  const onCreated = useCallback((avatar: TAvatar) => {
    setMode({ kind: 'none' });
    setExpanded((current) => new Set(current).add(avatar.id));
    setCreated(avatar);
  }, []);

  const layout = (
    <CreatorLayout
      mode={mode}
      setMode={setMode}
      avatars={avatars}
      account={account.data}
      isAccountPending={account.isPending}
      expanded={expanded}
      setExpanded={setExpanded}
      isEditorLoading={mode.kind !== 'none' && !isStarted}
    />
  );

  return (
    <>
      {isStarted && started ? (
        <EditorSessionProvider
          key={modeKey}
          mode={mode}
          agent={agent}
          initialAvatarConfig={started.avatarConfig}
          initialClientConfig={started.clientConfig}
          isAdminProxy={auth?.adminProxy ?? false}
          onCreated={onCreated}
        >
          {layout}
        </EditorSessionProvider>
      ) : (
        layout
      )}
      <CreatedDialog avatar={created} onClose={() => setCreated(null)} />
    </>
  );
}

interface CreatorLayoutProps {
  mode: EditorMode;
  setMode: (mode: EditorMode) => void;
  avatars: ReturnType<typeof useAvatars>;
  account: TCreatorAccount | undefined;
  /** The plan is not known yet: its usage line and limit alert would push the list down when it is. */
  isAccountPending: boolean;
  expanded: Set<number>;
  setExpanded: (update: (current: Set<number>) => Set<number>) => void;
  isEditorLoading: boolean;
}

function CreatorLayout({ mode, setMode, avatars, account, isAccountPending, expanded, setExpanded, isEditorLoading }: CreatorLayoutProps) {
  const session = useOptionalEditorSession();
  const client = useQueryClient();
  const [searchParams] = useSearchParams();
  const showSearch = searchParams.get('showSearchBar') === 'true';
  const [query, setQuery] = useState('');
  const [pendingLeave, setPendingLeave] = useState<(() => void) | null>(null);
  const [toDelete, setToDelete] = useState<TAvatar | null>(null);
  const [usersOf, setUsersOf] = useState<TAvatar | null>(null);
  const list = useMemo(() => filterById(avatars.data ?? [], query), [avatars.data, query]);
  const isListPending = avatars.isPending || isAccountPending;
  // The cards show their appearance's picture (the lists the Appearance tab uses, cached).
  const defaults = useDefaultAvatars(account?.defaultAvatarsList ? toFetchable(account.defaultAvatarsList) : undefined);
  const custom = useCustomAvatars(account?.customAvatarsJsonUrl ? toFetchable(account.customAvatarsJsonUrl) : undefined);
  const catalogue = useMemo(() => {
    const d = defaults.data;
    return [...(custom.data ?? []), ...(d ? [...d.image, ...d.upperBody, ...d.fullBody, ...d.video] : [])];
  }, [defaults.data, custom.data]);

  /** Runs the action, first asking 'Unsaved Changes' when the editor has any. */
  const requestLeave = (action: () => void) => {
    if (session?.isDirty) setPendingLeave(() => action);
    else action();
  };

  const isCreate = mode.kind === 'create';
  // The plan's limit, known before the form is filled in (the server enforces the same number).
  const count = avatars.data?.length;
  const max = account?.maxAvatars;
  const isAtLimit = !isCreate && count !== undefined && max !== undefined && max !== null && count >= max;
  const hasAppearance = isCreate && Boolean(session && parentConfigOf(session.draft.avatarConfig));
  const onStart = () => {
    if (!isCreate) requestLeave(() => setMode({ kind: 'create' }));
    else void session?.create();
  };

  const onDeleted = useCallback(
    (id: number) => {
      forgetAvatar(client, id);
      if (mode.kind === 'edit' && mode.id === id) setMode({ kind: 'none' });
    },
    [client, mode, setMode],
  );
  const closeDelete = useCallback(() => setToDelete(null), []);

  return (
    <Box sx={{ display: 'flex', gap: 3, alignItems: 'flex-start' }}>
      <Box component="aside" aria-label="Your avatars" sx={{ width: AvatarLimits.listWidthPx, flexShrink: 0, display: 'flex', flexDirection: 'column', gap: 1.5 }}>
        <Button
          variant="contained"
          size="large"
          startIcon={hasAppearance ? <AutoAwesomeOutlinedIcon /> : <AddIcon />}
          onClick={onStart}
          disabled={session?.isSaving || isAtLimit}
          aria-describedby={count !== undefined && max !== undefined && max !== null ? (isAtLimit ? 'plan-usage plan-limit' : 'plan-usage') : undefined}
          fullWidth
          sx={{ py: 1.25, fontWeight: 700, letterSpacing: '0.02em' }}
        >
          {hasAppearance ? 'CREATE AVATAR' : 'START'}
        </Button>
        {count !== undefined && max !== undefined && !isCreate ? <PlanUsage count={count} max={max} /> : null}
        {showSearch ? (
          <TextField
            size="small"
            placeholder="Search by avatar ID"
            value={query}
            onChange={(e) => setQuery(e.target.value)}
            slotProps={{
              htmlInput: { 'aria-label': 'Search by avatar ID', inputMode: 'numeric' },
              input: { startAdornment: <InputAdornment position="start"><SearchIcon fontSize="small" /></InputAdornment> },
            }}
          />
        ) : null}
        {/* The cards wait for the plan too: its line and alert arriving later moved them under the
            pointer (a click on Edit landed on the card's details). */}
        <AvatarListStatus
          isPending={isListPending}
          isError={avatars.isError}
          isEmpty={!avatars.isPending && !avatars.isError && list.length === 0}
          emptyText={query ? `No avatar ID contains "${query}".` : 'No avatars yet. Click START to create your first one.'}
        />
        <Stack spacing={1.25} sx={{ maxHeight: { md: 'calc(100vh - 260px)' }, overflowY: 'auto', pr: 0.5, pb: 0.5 }}>
          {(isListPending ? [] : list).map((avatar) => (
            <AvatarCard
              key={avatar.id}
              avatar={avatar}
              appearancePicture={appearancePictureOf(avatar, catalogue)}
              hasOwnModel={hasOwnModel(avatar)}
              isSelected={mode.kind === 'edit' && mode.id === avatar.id}
              isExpanded={expanded.has(avatar.id)}
              onToggleExpanded={() =>
                setExpanded((current) => {
                  const next = new Set(current);
                  if (next.has(avatar.id)) next.delete(avatar.id);
                  else next.add(avatar.id);
                  return next;
                })
              }
              onEdit={() => requestLeave(() => setMode({ kind: 'edit', id: avatar.id }))}
              onClose={() => requestLeave(() => setMode({ kind: 'none' }))}
              onDelete={() => setToDelete(avatar)}
              onShowUsers={() => setUsersOf(avatar)}
            />
          ))}
        </Stack>
      </Box>

      <Box sx={{ flex: 1, minWidth: 0 }}>
        {mode.kind === 'none' ? (
          <Paper variant="outlined" sx={{ p: { xs: 4, md: 6 }, textAlign: 'center', borderStyle: 'dashed', bgcolor: 'transparent' }}>
            <AutoAwesomeOutlinedIcon color="primary" sx={{ fontSize: 44 }} aria-hidden />
            <Typography variant="h5" component="h2" sx={{ mt: 1 }}>
              Build an avatar
            </Typography>
            <Typography color="text.secondary" sx={{ mt: 1, maxWidth: 520, mx: 'auto' }}>
              Click START to pick an appearance and create a new avatar, or select one of your avatars and click EDIT to change its environment,
              settings and embed code.
            </Typography>
          </Paper>
        ) : isEditorLoading || !session ? (
          <Paper variant="outlined" sx={{ p: 3 }}>
            <Skeleton width={240} height={40} />
            <Skeleton variant="rounded" height={44} sx={{ my: 2 }} />
            <Skeleton variant="rounded" height={320} />
          </Paper>
        ) : (
          <EditorPanel account={account} onClose={() => requestLeave(() => setMode({ kind: 'none' }))} />
        )}
      </Box>

      <ConfirmDialog
        open={pendingLeave !== null}
        title="Unsaved Changes"
        confirmLabel="Save"
        cancelLabel="Discard"
        isBusy={session?.isSaving}
        onDismiss={() => setPendingLeave(null)}
        onCancel={() => {
          const action = pendingLeave;
          setPendingLeave(null);
          action?.();
        }}
        onConfirm={() => {
          const action = pendingLeave;
          setPendingLeave(null);
          void session?.saveNow({ skipConfirm: true }).then((ok) => ok && action?.());
        }}
      >
        You have unsaved changes to {session?.draft.name || 'this avatar'}. Save them before you leave, or discard them?
      </ConfirmDialog>
      <DeleteAvatarDialog avatar={toDelete} onClose={closeDelete} onDeleted={onDeleted} />
      <OnlineUsersDialog avatar={usersOf} onClose={() => setUsersOf(null)} />
    </Box>
  );
}
