import { useState } from 'react';
import Alert from '@mui/material/Alert';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import Chip from '@mui/material/Chip';
import Paper from '@mui/material/Paper';
import Typography from '@mui/material/Typography';
import ArrowForwardIcon from '@mui/icons-material/ArrowForward';
import CheckIcon from '@mui/icons-material/Check';
import CloseIcon from '@mui/icons-material/Close';
import InboxOutlinedIcon from '@mui/icons-material/InboxOutlined';
import { AdminMessages, comparePlans, SubscriptionTypeName, type TPlanRequest } from '@persona/contract';
import { ConfirmDialog } from '../../../components/confirm-dialog';
import { errorMessages } from '../../../lib/api-client';
import { formatDateTime } from '../../../lib/format-date';
import { showToast } from '../../../lib/toast';
import { useDecidePlanRequest } from '../api/decide-plan-request';
import { usePlanRequests } from '../api/list-plan-requests';
import { DeclineDialog } from './decline-dialog';
import { highlightSx, useScrollIntoView } from './highlight';
import { EmptyNote, Failed, Fetching, SectionTitle } from './state-views';

const name = (code: TPlanRequest['currentSubType']) => SubscriptionTypeName[code];

function PlanChange({ request }: { request: TPlanRequest }) {
  const isUpgrade = comparePlans(request.requestedSubType, request.currentSubType) >= 0;
  return (
    <Box sx={{ display: 'flex', alignItems: 'center', gap: 1, flexWrap: 'wrap' }}>
      <Chip size="small" variant="outlined" label={name(request.currentSubType)} sx={{ fontWeight: 700 }} />
      <ArrowForwardIcon fontSize="small" aria-label="to" sx={{ color: 'text.secondary' }} />
      <Chip size="small" color="primary" label={name(request.requestedSubType)} sx={{ fontWeight: 700 }} />
      <Typography variant="body2" color={isUpgrade ? 'success.main' : 'warning.main'} sx={{ fontWeight: 600 }}>
        {isUpgrade ? 'Upgrade' : 'Downgrade'}
      </Typography>
    </Box>
  );
}

const statusColor = { PENDING: 'warning', CONFIRMED: 'success', DECLINED: 'error', WITHDRAWN: 'default' } as const;

/** Plan change requests: pending ones to confirm or decline, and the decided ones below. */
export function PlanRequestsPanel({ highlightId }: { highlightId: number | null }) {
  const requests = usePlanRequests();
  const decide = useDecidePlanRequest();
  const [confirming, setConfirming] = useState<TPlanRequest | null>(null);
  const [declining, setDeclining] = useState<TPlanRequest | null>(null);
  const [error, setError] = useState<string | null>(null);

  const run = (request: TPlanRequest, decision: 'confirm' | 'decline', reason?: string) => {
    setError(null);
    decide.mutate(
      { requestId: request.id, decision, reason: reason || undefined },
      {
        onSuccess: (decided) => {
          setConfirming(null);
          setDeclining(null);
          void showToast(
            decision === 'confirm'
              ? `${decided.email} is now on ${name(decided.requestedSubType)}.`
              : `The request of ${decided.email} was declined.`,
            'success',
          );
        },
        onError: (err) => setError(errorMessages(err).join(' ')),
      },
    );
  };

  if (requests.isPending) return <Fetching label="Fetching plan requests…" />;
  if (requests.isError) return <Failed title={AdminMessages.requestsLoadFailed} error={requests.error} onRetry={() => void requests.refetch()} />;

  const pending = requests.data.filter((r) => r.status === 'PENDING');
  const decided = requests.data.filter((r) => r.status !== 'PENDING');
  const linked = highlightId === null ? undefined : requests.data.find((r) => r.id === highlightId);

  return (
    <Box sx={{ display: 'grid', gap: 3 }}>
      {highlightId !== null && !linked ? (
        <Alert severity="warning">Plan request #{highlightId} was not found.</Alert>
      ) : linked && linked.status !== 'PENDING' ? (
        <Alert severity="info">
          Plan request #{linked.id} of {linked.email} was already {linked.status.toLowerCase()}
          {linked.decidedBy ? ` by ${linked.decidedBy}` : ''}
          {linked.decided ? ` on ${formatDateTime(linked.decided)}` : ''}.
        </Alert>
      ) : null}
      {error && !confirming && !declining ? (
        <Alert severity="error" onClose={() => setError(null)}>
          {error}
        </Alert>
      ) : null}
      <section aria-labelledby="pending-plans-title">
        <Box id="pending-plans-title">
          <SectionTitle count={pending.length}>Pending</SectionTitle>
        </Box>
        {pending.length === 0 ? (
          <EmptyNote icon={<InboxOutlinedIcon />}>No plan change is waiting for a decision.</EmptyNote>
        ) : (
          <Box component="ul" sx={{ listStyle: 'none', m: 0, p: 0, display: 'grid', gap: 1.5 }}>
            {pending.map((request) => (
              <PendingCard
                key={request.id}
                request={request}
                isHighlighted={request.id === highlightId}
                isBusy={decide.isPending && decide.variables.requestId === request.id}
                onConfirm={() => {
                  setError(null);
                  setConfirming(request);
                }}
                onDecline={() => {
                  setError(null);
                  setDeclining(request);
                }}
              />
            ))}
          </Box>
        )}
      </section>
      <section aria-labelledby="plan-history-title">
        <Box id="plan-history-title">
          <SectionTitle>History</SectionTitle>
        </Box>
        {decided.length === 0 ? (
          <EmptyNote icon={<InboxOutlinedIcon />}>No decided requests yet.</EmptyNote>
        ) : (
          <Box component="ul" sx={{ listStyle: 'none', m: 0, p: 0, display: 'grid', gap: 1 }}>
            {decided.map((request) => (
              <HistoryRow key={request.id} request={request} isHighlighted={request.id === highlightId} />
            ))}
          </Box>
        )}
      </section>
      <ConfirmDialog
        open={confirming !== null}
        title="Confirm plan change?"
        confirmLabel="Confirm"
        cancelLabel="Cancel"
        isBusy={decide.isPending}
        onConfirm={() => confirming && run(confirming, 'confirm')}
        onCancel={() => setConfirming(null)}
        footer={
          error && confirming ? (
            <Alert severity="error" sx={{ mt: 2 }}>
              {error}
            </Alert>
          ) : null
        }
      >
        {confirming ? (
          <>
            {confirming.userName} ({confirming.email}) moves from {name(confirming.currentSubType)} to <strong>{name(confirming.requestedSubType)}</strong> now, and is e-mailed.
          </>
        ) : null}
      </ConfirmDialog>
      <DeclineDialog
        open={declining !== null}
        title="Decline plan change"
        text={declining ? `${declining.userName} (${declining.email}) stays on ${name(declining.currentSubType)} and is e-mailed your decision.` : ''}
        isBusy={decide.isPending}
        error={declining ? error : null}
        onDecline={(reason) => declining && run(declining, 'decline', reason)}
        onClose={() => setDeclining(null)}
      />
    </Box>
  );
}

interface PendingCardProps {
  request: TPlanRequest;
  isHighlighted: boolean;
  isBusy: boolean;
  onConfirm: () => void;
  onDecline: () => void;
}

function PendingCard({ request, isHighlighted, isBusy, onConfirm, onDecline }: PendingCardProps) {
  const ref = useScrollIntoView<HTMLLIElement>(isHighlighted);
  return (
    <Paper
      component="li"
      ref={ref}
      tabIndex={isHighlighted ? -1 : undefined}
      variant="outlined"
      aria-label={`Plan request ${request.id}`}
      aria-current={isHighlighted ? 'true' : undefined}
      sx={{ p: { xs: 2, sm: 2.5 }, display: 'flex', gap: 2, alignItems: 'center', flexWrap: 'wrap', ...(isHighlighted ? highlightSx : {}) }}
    >
      <Box sx={{ flex: '1 1 260px', minWidth: 0, display: 'grid', gap: 0.75 }}>
        <Box sx={{ display: 'flex', alignItems: 'center', gap: 1, flexWrap: 'wrap' }}>
          <Typography sx={{ fontWeight: 700 }}>{request.userName}</Typography>
          {isHighlighted ? <Chip size="small" color="primary" variant="outlined" label="From the e-mail link" /> : null}
        </Box>
        <Typography variant="body2" color="text.secondary" sx={{ overflowWrap: 'anywhere', mt: -0.5 }}>
          {request.email} · customer {request.userId} · request #{request.id}
        </Typography>
        <PlanChange request={request} />
        <Typography variant="caption" color="text.secondary">
          Requested {formatDateTime(request.created)}
        </Typography>
      </Box>
      <Box sx={{ display: 'flex', gap: 1, ml: 'auto' }}>
        <Button color="error" variant="outlined" startIcon={<CloseIcon />} onClick={onDecline} disabled={isBusy}>
          Decline
        </Button>
        <Button color="success" variant="contained" startIcon={<CheckIcon />} onClick={onConfirm} loading={isBusy}>
          Confirm
        </Button>
      </Box>
    </Paper>
  );
}

function HistoryRow({ request, isHighlighted }: { request: TPlanRequest; isHighlighted: boolean }) {
  const ref = useScrollIntoView<HTMLLIElement>(isHighlighted);
  return (
    <Paper
      component="li"
      ref={ref}
      tabIndex={isHighlighted ? -1 : undefined}
      variant="outlined"
      aria-label={`Plan request ${request.id}`}
      sx={{ px: 2, py: 1.5, display: 'flex', gap: { xs: 1, sm: 2 }, alignItems: 'center', flexWrap: 'wrap', ...(isHighlighted ? highlightSx : {}) }}
    >
      <Box sx={{ flex: '1 1 220px', minWidth: 0 }}>
        <Typography sx={{ fontWeight: 600, overflowWrap: 'anywhere' }}>
          {request.userName} <Box component="span" sx={{ color: 'text.secondary', fontWeight: 400 }}>· {request.email}</Box>
        </Typography>
        <Typography variant="caption" color="text.secondary">
          #{request.id} · requested {formatDateTime(request.created)}
          {request.decided ? ` · decided ${formatDateTime(request.decided)}` : ''}
          {request.decidedBy ? ` by ${request.decidedBy}` : ''}
        </Typography>
        {request.reason ? (
          <Typography variant="body2" color="text.secondary" sx={{ mt: 0.5, overflowWrap: 'anywhere' }}>
            Reason: {request.reason}
          </Typography>
        ) : null}
      </Box>
      <PlanChange request={request} />
      <Chip size="small" label={request.status} color={statusColor[request.status]} sx={{ fontWeight: 700, minWidth: 96 }} />
    </Paper>
  );
}
