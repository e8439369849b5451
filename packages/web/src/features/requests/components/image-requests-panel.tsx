import { useState } from 'react';
import Alert from '@mui/material/Alert';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import Chip from '@mui/material/Chip';
import Link from '@mui/material/Link';
import Paper from '@mui/material/Paper';
import Typography from '@mui/material/Typography';
import CheckIcon from '@mui/icons-material/Check';
import CloseIcon from '@mui/icons-material/Close';
import ImageOutlinedIcon from '@mui/icons-material/ImageOutlined';
import type { TImageAvatarRequest } from '@persona/contract';
import { errorMessages } from '../../../lib/api-client';
import { formatDateTime } from '../../../lib/format-date';
import { showToast } from '../../../lib/toast';
import { useDecideImageRequest } from '../api/decide-image-request';
import { useImageRequests } from '../api/list-image-requests';
import { CompleteImageDialog } from './complete-image-dialog';
import { DeclineDialog } from './decline-dialog';
import { highlightSx, useScrollIntoView } from './highlight';
import { EmptyNote, Failed, Fetching, SectionTitle } from './state-views';

export const IMAGE_REQUESTS_LOAD_FAILED = 'Failed to fetch image avatar requests';

const statusColor = { PENDING: 'warning', COMPLETED: 'success', DECLINED: 'error' } as const;

/** Image avatar requests: the customer's photo and notes; Complete with the finished image, or Decline. */
export function ImageRequestsPanel({ highlightId }: { highlightId: number | null }) {
  const requests = useImageRequests();
  const decide = useDecideImageRequest();
  const [completing, setCompleting] = useState<TImageAvatarRequest | null>(null);
  const [declining, setDeclining] = useState<TImageAvatarRequest | null>(null);
  const [error, setError] = useState<string | null>(null);

  const close = () => {
    setCompleting(null);
    setDeclining(null);
    setError(null);
  };
  const onError = (err: unknown) => setError(errorMessages(err).join(' '));

  if (requests.isPending) return <Fetching label="Fetching image avatar requests…" />;
  if (requests.isError) return <Failed title={IMAGE_REQUESTS_LOAD_FAILED} error={requests.error} onRetry={() => void requests.refetch()} />;

  const pending = requests.data.filter((r) => r.status === 'PENDING');
  const decided = requests.data.filter((r) => r.status !== 'PENDING');
  const linked = highlightId === null ? undefined : requests.data.find((r) => r.id === highlightId);

  return (
    <Box sx={{ display: 'grid', gap: 3 }}>
      {highlightId !== null && !linked ? (
        <Alert severity="warning">Image avatar request #{highlightId} was not found.</Alert>
      ) : linked && linked.status !== 'PENDING' ? (
        <Alert severity="info">
          Image avatar request #{linked.id} of {linked.email} was already {linked.status.toLowerCase()}
          {linked.decided ? ` on ${formatDateTime(linked.decided)}` : ''}.
        </Alert>
      ) : null}
      <section aria-labelledby="pending-images-title">
        <Box id="pending-images-title">
          <SectionTitle count={pending.length}>Pending</SectionTitle>
        </Box>
        {pending.length === 0 ? (
          <EmptyNote icon={<ImageOutlinedIcon />}>No image avatar is waiting to be made.</EmptyNote>
        ) : (
          <Box component="ul" sx={{ listStyle: 'none', m: 0, p: 0, display: 'grid', gap: 1.5 }}>
            {pending.map((request) => (
              <ImageRequestCard key={request.id} request={request} isHighlighted={request.id === highlightId}>
                <Box sx={{ display: 'flex', gap: 1, flexWrap: 'wrap', justifyContent: 'flex-end' }}>
                  <Button
                    color="error"
                    variant="outlined"
                    startIcon={<CloseIcon />}
                    onClick={() => {
                      setError(null);
                      setDeclining(request);
                    }}
                  >
                    Decline
                  </Button>
                  <Button
                    color="success"
                    variant="contained"
                    startIcon={<CheckIcon />}
                    onClick={() => {
                      setError(null);
                      setCompleting(request);
                    }}
                  >
                    Complete
                  </Button>
                </Box>
              </ImageRequestCard>
            ))}
          </Box>
        )}
      </section>
      <section aria-labelledby="image-history-title">
        <Box id="image-history-title">
          <SectionTitle>History</SectionTitle>
        </Box>
        {decided.length === 0 ? (
          <EmptyNote icon={<ImageOutlinedIcon />}>No decided requests yet.</EmptyNote>
        ) : (
          <Box component="ul" sx={{ listStyle: 'none', m: 0, p: 0, display: 'grid', gap: 1.5 }}>
            {decided.map((request) => (
              <ImageRequestCard key={request.id} request={request} isHighlighted={request.id === highlightId} />
            ))}
          </Box>
        )}
      </section>
      <CompleteImageDialog
        request={completing}
        isBusy={decide.isPending}
        error={error}
        onClose={close}
        onComplete={({ name, thumbnail, landmarks }) =>
          completing &&
          decide.mutate(
            { requestId: completing.id, decision: 'complete', name, thumbnail, landmarks },
            {
              onSuccess: (done) => {
                close();
                void showToast(`“${name}” is ready for ${done.email}.`, 'success');
              },
              onError,
            },
          )
        }
      />
      <DeclineDialog
        open={declining !== null}
        title="Decline image avatar"
        text={declining ? `${declining.userName} (${declining.email}) is e-mailed that “${declining.name}” will not be made.` : ''}
        isBusy={decide.isPending}
        error={error}
        onClose={close}
        onDecline={(reason) =>
          declining &&
          decide.mutate(
            { requestId: declining.id, decision: 'decline', reason: reason || undefined },
            {
              onSuccess: (done) => {
                close();
                void showToast(`The request of ${done.email} was declined.`, 'success');
              },
              onError,
            },
          )
        }
      />
    </Box>
  );
}

function ImageRequestCard({ request, isHighlighted, children }: { request: TImageAvatarRequest; isHighlighted: boolean; children?: React.ReactNode }) {
  const ref = useScrollIntoView<HTMLLIElement>(isHighlighted);
  return (
    <Paper
      component="li"
      ref={ref}
      tabIndex={isHighlighted ? -1 : undefined}
      variant="outlined"
      aria-label={`Image avatar request ${request.id}`}
      aria-current={isHighlighted ? 'true' : undefined}
      sx={{ p: { xs: 1.5, sm: 2 }, display: 'grid', gridTemplateColumns: { xs: '88px 1fr', sm: '120px 1fr auto' }, gap: 2, alignItems: 'start', ...(isHighlighted ? highlightSx : {}) }}
    >
      <Link href={request.photoUrl} target="_blank" rel="noopener" aria-label={`Open the photo for ${request.name}`} sx={{ display: 'block', lineHeight: 0 }}>
        <Box
          component="img"
          src={request.photoUrl}
          alt={`Photo for ${request.name}`}
          loading="lazy"
          sx={{ width: { xs: 88, sm: 120 }, height: { xs: 88, sm: 120 }, objectFit: 'cover', borderRadius: 2, bgcolor: 'rgba(17, 24, 39, 0.05)', border: 1, borderColor: 'divider' }}
        />
      </Link>
      <Box sx={{ minWidth: 0, display: 'grid', gap: 0.5 }}>
        <Box sx={{ display: 'flex', alignItems: 'center', gap: 1, flexWrap: 'wrap' }}>
          <Typography sx={{ fontWeight: 700, overflowWrap: 'anywhere' }}>{request.name}</Typography>
          <Chip size="small" label={request.status} color={statusColor[request.status]} sx={{ fontWeight: 700 }} />
          {isHighlighted ? <Chip size="small" color="primary" variant="outlined" label="From the e-mail link" /> : null}
        </Box>
        <Typography variant="body2" color="text.secondary" sx={{ overflowWrap: 'anywhere' }}>
          {request.userName} · {request.email} · request #{request.id}
        </Typography>
        <Typography variant="body2" sx={{ whiteSpace: 'pre-wrap', overflowWrap: 'anywhere', color: request.notes ? 'text.primary' : 'text.secondary' }}>
          {request.notes || 'No notes.'}
        </Typography>
        <Typography variant="caption" color="text.secondary">
          Requested {formatDateTime(request.created)}
          {request.decided ? ` · decided ${formatDateTime(request.decided)}` : ''}
        </Typography>
        {request.reason ? (
          <Typography variant="body2" color="text.secondary">
            Reason: {request.reason}
          </Typography>
        ) : null}
      </Box>
      {children ? <Box sx={{ gridColumn: { xs: '1 / -1', sm: 'auto' }, alignSelf: 'center' }}>{children}</Box> : null}
    </Paper>
  );
}
