import { useEffect, useMemo, useState } from 'react';
import { Link as RouterLink, useSearchParams } from 'react-router';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import InputAdornment from '@mui/material/InputAdornment';
import Stack from '@mui/material/Stack';
import TextField from '@mui/material/TextField';
import useMediaQuery from '@mui/material/useMediaQuery';
import { useTheme } from '@mui/material/styles';
import AddIcon from '@mui/icons-material/Add';
import SearchIcon from '@mui/icons-material/Search';
import { PageHeader } from '../../../components/page-header';
import { paths } from '../../../lib/paths';
import { useDocumentTitle } from '../../../lib/use-document-title';
import { useAvatars } from '../api/list-avatars';
import { AvatarCard } from '../components/avatar-card';
import { AvatarCreator, AvatarListStatus, PlanUsage, filterById } from '../components/avatar-creator';
import { useAccountInfo } from '../api/get-account-info';

const INTRO =
  'Create interactive AI avatars, give them a look, an environment and a brain, and embed them in your website or app. Start with an appearance; everything else can be changed later.';

/** /avatars: the avatar creator on desktop, the list with Connect on mobile (under 760 px). */
/**
 * Below 760 px: the phone layout. A change must last 400 ms before the layout switches, so a
 * passing resize (a full-page screenshot, a rotating phone) does not throw away an open editor.
 */
function useIsMobile(): boolean {
  const theme = useTheme();
  const matches = useMediaQuery(theme.breakpoints.down('sm'), { noSsr: true });
  const [stable, setStable] = useState(matches);
  useEffect(() => {
    if (matches === stable) return;
    const timer = setTimeout(() => setStable(matches), 400);
    return () => clearTimeout(timer);
  }, [matches, stable]);
  return stable;
}

export function AvatarsRoute() {
  const isMobile = useIsMobile();
  useDocumentTitle(isMobile ? 'Your Avatars' : 'Avatar Creator');
  return (
    <Box sx={{ px: { xs: 2, sm: 3, lg: 4 }, py: { xs: 3, sm: 4 }, flex: 1, width: '100%', maxWidth: 1680, mx: 'auto' }}>
      {isMobile ? (
        <MobileAvatarList />
      ) : (
        <>
          <PageHeader title="Avatar Creator" description={INTRO} />
          <AvatarCreator />
        </>
      )}
    </Box>
  );
}

function MobileAvatarList() {
  const avatars = useAvatars();
  const account = useAccountInfo();
  const [searchParams] = useSearchParams();
  const showSearch = searchParams.get('showSearchBar') === 'true';
  const [query, setQuery] = useState('');
  const [collapsed, setCollapsed] = useState<Set<number>>(() => new Set());
  const list = useMemo(() => filterById(avatars.data ?? [], query), [avatars.data, query]);
  return (
    <>
      <PageHeader
        title="Your Avatars"
        description="Connect to your avatars from here. Creating and editing avatars needs a larger screen."
        actions={
          <Button component={RouterLink} to={paths.addAvatar} variant="contained" startIcon={<AddIcon />}>
            Add Avatar
          </Button>
        }
      />
      <Stack spacing={1.25}>
        {avatars.data && account.data?.maxAvatars !== undefined ? <PlanUsage count={avatars.data.length} max={account.data.maxAvatars} /> : null}
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
        <AvatarListStatus
          isPending={avatars.isPending}
          isError={avatars.isError}
          isEmpty={!avatars.isPending && !avatars.isError && list.length === 0}
          emptyText={query ? `No avatar ID contains "${query}".` : 'No avatars yet. Tap Add Avatar to create one.'}
        />
        {list.map((avatar) => (
          <AvatarCard
            key={avatar.id}
            avatar={avatar}
            isCompact
            isSelected={false}
            isExpanded={!collapsed.has(avatar.id)}
            onToggleExpanded={() =>
              setCollapsed((current) => {
                const next = new Set(current);
                if (next.has(avatar.id)) next.delete(avatar.id);
                else next.add(avatar.id);
                return next;
              })
            }
          />
        ))}
      </Stack>
    </>
  );
}
