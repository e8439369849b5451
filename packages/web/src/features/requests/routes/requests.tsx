import { useState } from 'react';
import { useSearchParams } from 'react-router';
import Badge from '@mui/material/Badge';
import Box from '@mui/material/Box';
import IconButton from '@mui/material/IconButton';
import Tab from '@mui/material/Tab';
import Tabs from '@mui/material/Tabs';
import Tooltip from '@mui/material/Tooltip';
import RefreshIcon from '@mui/icons-material/Refresh';
import { useIsFetching, useQueryClient } from '@tanstack/react-query';
import { PageContainer } from '../../../components/page-container';
import { PageHeader } from '../../../components/page-header';
import { useDocumentTitle } from '../../../lib/use-document-title';
import { useImageRequests } from '../api/list-image-requests';
import { requestsQueryKey, usePlanRequests } from '../api/list-plan-requests';
import { ImageRequestsPanel } from '../components/image-requests-panel';
import { PlanRequestsPanel } from '../components/plan-requests-panel';

type RequestsTab = 'plans' | 'images';

function positiveInt(value: string | null): number | null {
  if (!value || !/^\d+$/.test(value)) return null;
  const n = Number(value);
  return n > 0 ? n : null;
}

/**
 * /requests (admin): plan changes to confirm or decline and image avatars to make. The e-mails to
 * administrators link here: `?id={planRequestId}` or `?imageRequest={id}` opens and highlights it.
 */
export function RequestsRoute() {
  useDocumentTitle('Requests');
  const [params] = useSearchParams();
  const planId = positiveInt(params.get('id'));
  const imageId = positiveInt(params.get('imageRequest'));
  const [tab, setTab] = useState<RequestsTab>(imageId !== null && planId === null ? 'images' : 'plans');
  const client = useQueryClient();
  const isFetching = useIsFetching({ queryKey: requestsQueryKey }) > 0;
  const plans = usePlanRequests();
  const images = useImageRequests();
  const pendingPlans = plans.data?.filter((r) => r.status === 'PENDING').length ?? 0;
  const pendingImages = images.data?.filter((r) => r.status === 'PENDING').length ?? 0;

  return (
    <PageContainer>
      <PageHeader
        title="Requests"
        description="What customers asked for: plan changes to confirm or decline, and image avatars to make from their photo. Customers are e-mailed every decision."
        actions={
          <Tooltip title="Refresh">
            <span>
              <IconButton
                aria-label="Refresh"
                onClick={() => void client.invalidateQueries({ queryKey: requestsQueryKey })}
                disabled={isFetching}
                sx={{ border: 1, borderColor: 'divider', bgcolor: 'background.paper' }}
              >
                <RefreshIcon />
              </IconButton>
            </span>
          </Tooltip>
        }
      />
      <Tabs value={tab} onChange={(_e, value: RequestsTab) => setTab(value)} aria-label="Request kind" variant="scrollable" allowScrollButtonsMobile sx={{ mb: 2.5, borderBottom: 1, borderColor: 'divider' }}>
        <Tab value="plans" label={<TabLabel label="Plan changes" count={pendingPlans} />} />
        <Tab value="images" label={<TabLabel label="Image avatars" count={pendingImages} />} />
      </Tabs>
      <Box role="tabpanel" aria-label={tab === 'plans' ? 'Plan changes' : 'Image avatars'}>
        {tab === 'plans' ? <PlanRequestsPanel highlightId={planId} /> : <ImageRequestsPanel highlightId={imageId} />}
      </Box>
    </PageContainer>
  );
}

function TabLabel({ label, count }: { label: string; count: number }) {
  return (
    <Box component="span" sx={{ display: 'inline-flex', alignItems: 'center', gap: 1.75, pr: count > 0 ? 1 : 0 }}>
      {label}
      {count > 0 ? <Badge badgeContent={count} color="warning" aria-label={`${count} pending`} /> : null}
    </Box>
  );
}
