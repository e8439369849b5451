import { useState } from 'react';
import Alert from '@mui/material/Alert';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import Dialog from '@mui/material/Dialog';
import DialogActions from '@mui/material/DialogActions';
import DialogContent from '@mui/material/DialogContent';
import DialogContentText from '@mui/material/DialogContentText';
import DialogTitle from '@mui/material/DialogTitle';
import IconButton from '@mui/material/IconButton';
import Paper from '@mui/material/Paper';
import Skeleton from '@mui/material/Skeleton';
import Tab from '@mui/material/Tab';
import Tabs from '@mui/material/Tabs';
import TextField from '@mui/material/TextField';
import Tooltip from '@mui/material/Tooltip';
import Typography from '@mui/material/Typography';
import CheckIcon from '@mui/icons-material/Check';
import CloseIcon from '@mui/icons-material/Close';
import RefreshIcon from '@mui/icons-material/Refresh';
import { ApprovalStatus, FunctionLimits, FunctionMessages, type TReviewFunction } from '@persona/contract';
import { PageContainer } from '../../../components/page-container';
import { PageHeader } from '../../../components/page-header';
import { PythonEditor } from '../../../components/python-editor';
import { errorMessages } from '../../../lib/api-client';
import { formatDateTime } from '../../../lib/format-date';
import { showToast } from '../../../lib/toast';
import { useDocumentTitle } from '../../../lib/use-document-title';
import { ConfirmDialog } from '../../../components/confirm-dialog';
import { useDecideFunction } from '../api/decide-function';
import { useReviewQueue } from '../api/list-review-queue';
import { ApprovalChip } from '../components/approval-chip';

const FILTERS = [
  { label: 'Pending', status: ApprovalStatus.Pending },
  { label: 'Approved', status: ApprovalStatus.Approved },
  { label: 'Rejected', status: ApprovalStatus.Rejected },
  { label: 'All', status: undefined },
] as const;

/** /functionsreview (admin): the queue of functions waiting for moderation, with their code. */
export function FunctionsReviewRoute() {
  useDocumentTitle('Functions review');
  const [filter, setFilter] = useState(0);
  const status = FILTERS[filter]!.status;
  const queue = useReviewQueue(status);
  const decide = useDecideFunction();
  const [rejecting, setRejecting] = useState<TReviewFunction | null>(null);
  const [reason, setReason] = useState('');
  const [reasonError, setReasonError] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [approving, setApproving] = useState<TReviewFunction | null>(null);
  const [notice, setNotice] = useState<string | null>(null);

  const run = async (fn: TReviewFunction, decision: 'approve' | 'reject', why?: string) => {
    setError(null);
    setNotice(null);
    try {
      await decide.mutateAsync({ id: fn.id, version: fn.version, decision, reason: why });
      // The card leaves the Pending list: say what happened to it where the admin is looking.
      setNotice(decision === 'approve' ? FunctionMessages.approvedNamed(fn.name) : `${fn.name}: ${FunctionMessages.rejected}`);
      void showToast(decision === 'approve' ? FunctionMessages.approved : FunctionMessages.rejected, 'success');
      return true;
    } catch (err) {
      setError(errorMessages(err).join(' '));
      return false;
    }
  };

  const submitRejection = async () => {
    if (!rejecting) return;
    if (!reason.trim()) {
      setReasonError(FunctionMessages.reasonRequired);
      return;
    }
    if (await run(rejecting, 'reject', reason.trim())) {
      setRejecting(null);
      setReason('');
    }
  };

  return (
    <PageContainer>
      <PageHeader
        title="Functions review"
        description="Read each function's code before avatars may run it. The owner is e-mailed your decision; a rejection needs a reason they can act on."
        actions={
          <Tooltip title="Refresh">
            <IconButton aria-label="Refresh" onClick={() => void queue.refetch()}>
              <RefreshIcon />
            </IconButton>
          </Tooltip>
        }
      />
      <Tabs
        value={filter}
        onChange={(_e, value: number) => setFilter(value)}
        // Phones: compact tabs, all four visible (and scrollable rather than clipped if a phone is narrower still).
        variant="scrollable"
        scrollButtons={false}
        sx={{ mb: 2, maxWidth: '100%', '& .MuiTab-root': { minWidth: 0, px: { xs: 1.5, sm: 2 } } }}
        aria-label="Approval status"
      >
        {FILTERS.map((f) => (
          <Tab key={f.label} label={f.label} />
        ))}
      </Tabs>
      {notice ? (
        <Alert severity="success" role="status" sx={{ mb: 2 }} onClose={() => setNotice(null)}>
          {notice}
        </Alert>
      ) : null}
      {error ? (
        <Alert severity="error" sx={{ mb: 2 }} onClose={() => setError(null)}>
          {error}
        </Alert>
      ) : null}
      {queue.isPending ? (
        <Box sx={{ display: 'grid', gap: 2 }}>
          <Skeleton variant="rounded" height={180} />
          <Skeleton variant="rounded" height={180} />
        </Box>
      ) : queue.isError ? (
        <Alert
          severity="error"
          action={
            <Button color="inherit" size="small" onClick={() => void queue.refetch()}>
              Retry
            </Button>
          }
        >
          {FunctionMessages.reviewLoadFailed}: {errorMessages(queue.error).join(' ')}
        </Alert>
      ) : queue.data.length === 0 ? (
        <Paper variant="outlined" sx={{ p: 4, textAlign: 'center' }}>
          <Typography color="text.secondary">{status === ApprovalStatus.Pending ? 'No functions are waiting for review.' : 'No functions here.'}</Typography>
        </Paper>
      ) : (
        // minmax(0, 1fr): a card is as wide as the page, and long code lines scroll inside its editor (phones scrolled sideways).
        <Box component="ul" sx={{ listStyle: 'none', p: 0, m: 0, display: 'grid', gridTemplateColumns: 'minmax(0, 1fr)', gap: 2 }}>
          {queue.data.map((fn) => (
            <Paper component="li" key={fn.id} variant="outlined" sx={{ p: { xs: 2, sm: 2.5 } }} aria-label={`Function ${fn.name}`}>
              <Box sx={{ display: 'flex', gap: 1.5, alignItems: 'flex-start', flexWrap: 'wrap', mb: 1.5 }}>
                <Box sx={{ flex: '1 1 240px', minWidth: 0 }}>
                  <Typography variant="h5" component="h2" sx={{ overflowWrap: 'anywhere' }}>
                    {fn.name}
                  </Typography>
                  <Typography variant="body2" color="text.secondary">
                    {fn.ownerName} · {fn.ownerEmail} · customer {fn.userId}
                  </Typography>
                  <Typography variant="caption" color="text.secondary">
                    Created {formatDateTime(fn.createDate)} · Last update {formatDateTime(fn.lastUpdateDate, 'never')}
                    {fn.lastAdminUpdateDate ? ` · Decided ${formatDateTime(fn.lastAdminUpdateDate)}${fn.reviewedBy ? ` by ${fn.reviewedBy}` : ''}` : ''}
                  </Typography>
                </Box>
                <ApprovalChip status={fn.approvalStatus} size="medium" />
              </Box>
              {fn.rejectionReason ? (
                <Alert severity="error" variant="outlined" sx={{ mb: 1.5 }}>
                  Rejected: {fn.rejectionReason}
                </Alert>
              ) : null}
              <PythonEditor label={`Code of ${fn.name}`} value={fn.code} readOnly rows={Math.min(FunctionLimits.editorRows, Math.max(6, fn.code.split('\n').length))} />
              <Box sx={{ display: 'flex', gap: 1, justifyContent: 'flex-end', mt: 1.5 }}>
                {fn.approvalStatus !== ApprovalStatus.Rejected ? (
                  <Button
                    color="error"
                    variant="outlined"
                    startIcon={<CloseIcon />}
                    onClick={() => {
                      setRejecting(fn);
                      setReasonError(null);
                    }}
                    disabled={decide.isPending}
                  >
                    Reject
                  </Button>
                ) : null}
                {fn.approvalStatus !== ApprovalStatus.Approved ? (
                  <Button color="success" variant="contained" startIcon={<CheckIcon />} onClick={() => setApproving(fn)} loading={decide.isPending && decide.variables?.id === fn.id && decide.variables.decision === 'approve'}>
                    Approve
                  </Button>
                ) : null}
              </Box>
            </Paper>
          ))}
        </Box>
      )}
      <ConfirmDialog
        open={approving !== null}
        title={`Approve ${approving?.name ?? ''}`}
        confirmLabel="Approve"
        cancelLabel="Cancel"
        isBusy={decide.isPending}
        onCancel={() => setApproving(null)}
        onConfirm={() => {
          const fn = approving;
          if (fn) void run(fn, 'approve').then(() => setApproving(null));
        }}
      >
        {approving ? FunctionMessages.approveConfirm(approving.name) : null}
      </ConfirmDialog>
      <Dialog open={rejecting !== null} onClose={() => setRejecting(null)} maxWidth="sm" fullWidth aria-labelledby="reject-title">
        <DialogTitle id="reject-title" sx={{ fontWeight: 700 }}>
          Reject {rejecting?.name}
        </DialogTitle>
        <DialogContent>
          <DialogContentText sx={{ mb: 2 }}>Tell the owner why, so they can fix it. The reason is e-mailed to them and shown with the function.</DialogContentText>
          <TextField
            label="Reason"
            value={reason}
            onChange={(e) => {
              setReason(e.target.value);
              if (e.target.value.trim()) setReasonError(null);
            }}
            error={reasonError !== null}
            helperText={reasonError}
            multiline
            minRows={3}
            fullWidth
            autoFocus
            slotProps={{ htmlInput: { maxLength: FunctionLimits.reasonMax } }}
          />
        </DialogContent>
        <DialogActions sx={{ px: 3, pb: 2 }}>
          <Button color="inherit" onClick={() => setRejecting(null)} disabled={decide.isPending}>
            Cancel
          </Button>
          <Button color="error" variant="contained" onClick={() => void submitRejection()} loading={decide.isPending}>
            Reject
          </Button>
        </DialogActions>
      </Dialog>
    </PageContainer>
  );
}
