import { useState } from 'react';
import Alert from '@mui/material/Alert';
import AlertTitle from '@mui/material/AlertTitle';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import Chip from '@mui/material/Chip';
import CircularProgress from '@mui/material/CircularProgress';
import Link from '@mui/material/Link';
import Paper from '@mui/material/Paper';
import Table from '@mui/material/Table';
import TableBody from '@mui/material/TableBody';
import TableCell from '@mui/material/TableCell';
import TableContainer from '@mui/material/TableContainer';
import TableHead from '@mui/material/TableHead';
import TableRow from '@mui/material/TableRow';
import Typography from '@mui/material/Typography';
import AddIcon from '@mui/icons-material/Add';
import KeyOutlinedIcon from '@mui/icons-material/VpnKeyOutlined';
import { ApiKeyMessages, type TApiKey } from '@persona/contract';
import { ConfirmDialog } from '../../../components/confirm-dialog';
import { PageContainer } from '../../../components/page-container';
import { PageHeader } from '../../../components/page-header';
import { errorMessages } from '../../../lib/api-client';
import { formatDateTime } from '../../../lib/format-date';
import { showToast } from '../../../lib/toast';
import { useDocumentTitle } from '../../../lib/use-document-title';
import { useApiKeys, useRevokeApiKey } from '../api/api-keys';
import { CreateKeyDialog } from '../components/create-key-dialog';

const mono = { fontFamily: 'ui-monospace, SFMono-Regular, Menlo, monospace', fontSize: '0.8125rem' };
const fromSm = { display: { xs: 'none', sm: 'table-cell' } };

/** /apiKeys (ADR 094): the account's API keys for its servers — list, create (secret shown once), revoke. */
export function ApiKeysRoute() {
  useDocumentTitle('API keys');
  const keys = useApiKeys();
  const revoke = useRevokeApiKey();
  const [isCreating, setCreating] = useState(false);
  const [toRevoke, setToRevoke] = useState<TApiKey | null>(null);
  const [revokeError, setRevokeError] = useState<string | null>(null);

  const confirmRevoke = () => {
    if (!toRevoke) return;
    setRevokeError(null);
    revoke.mutate(toRevoke.id, {
      onSuccess: () => {
        setToRevoke(null);
        void showToast(ApiKeyMessages.revoked, 'success', { id: 'api-key' });
      },
      onError: (error) => setRevokeError(errorMessages(error).join(' ')),
    });
  };

  const isExpired = (k: TApiKey) => k.expiresAt !== null && Date.parse(k.expiresAt) <= Date.now();

  return (
    <PageContainer maxWidth="xl">
      <PageHeader
        title="API keys"
        description={
          <>
            Keys for your own servers to call the API without signing in: read and export conversations, read and save avatars, mint visitor tokens. Send one as{' '}
            <Box component="code" sx={mono}>
              Authorization: Bearer ps_live_…
            </Box>
            ; the calls and their scopes are described in the{' '}
            <Link href="/api/docs" target="_blank" rel="noopener">
              OpenAPI document
            </Link>
            .
          </>
        }
        actions={
          <Button variant="contained" startIcon={<AddIcon />} onClick={() => setCreating(true)}>
            New API key
          </Button>
        }
      />
      <Paper variant="outlined" sx={{ overflow: 'hidden' }}>
        {keys.isPending ? (
          <Box role="status" aria-live="polite" sx={{ py: 6, display: 'flex', flexDirection: 'column', alignItems: 'center', gap: 1.5, color: 'text.secondary' }}>
            <CircularProgress size={30} aria-hidden />
            <Typography variant="body2">Fetching API keys…</Typography>
          </Box>
        ) : keys.isError ? (
          <Alert
            severity="error"
            sx={{ m: 2 }}
            action={
              <Button color="inherit" size="small" onClick={() => void keys.refetch()}>
                Retry
              </Button>
            }
          >
            <AlertTitle>{ApiKeyMessages.listFailed}</AlertTitle>
            {errorMessages(keys.error).join(' ')}
          </Alert>
        ) : keys.data.length === 0 ? (
          <Box sx={{ py: { xs: 5, sm: 7 }, px: 2, textAlign: 'center', display: 'flex', flexDirection: 'column', alignItems: 'center', gap: 1 }}>
            <Box sx={{ width: 56, height: 56, borderRadius: '50%', display: 'grid', placeItems: 'center', bgcolor: 'rgba(79, 70, 229, 0.08)', color: 'primary.main', mb: 1, '& svg': { fontSize: 30 } }}>
              <KeyOutlinedIcon />
            </Box>
            <Typography variant="h5" component="p">
              No API keys yet
            </Typography>
            <Typography color="text.secondary" sx={{ maxWidth: 440 }}>
              Create one for each server that calls the API, with only the scopes it needs.
            </Typography>
          </Box>
        ) : (
          <TableContainer sx={{ overflowX: 'auto' }}>
            <Table size="small" aria-label="API keys" sx={{ '& th': { fontWeight: 700, whiteSpace: 'nowrap' }, '& td, & th': { py: 1.25 } }}>
              <TableHead>
                <TableRow>
                  <TableCell>Name</TableCell>
                  <TableCell sx={fromSm}>Key</TableCell>
                  <TableCell>Scopes</TableCell>
                  <TableCell sx={fromSm}>Expires</TableCell>
                  <TableCell sx={fromSm}>Last used</TableCell>
                  <TableCell align="right" aria-label="Actions" />
                </TableRow>
              </TableHead>
              <TableBody>
                {keys.data.map((k) => (
                  <TableRow key={k.id} hover>
                    <TableCell sx={{ overflowWrap: 'break-word', minWidth: 96, fontWeight: 600 }}>{k.name}</TableCell>
                    <TableCell sx={{ ...fromSm, ...mono, whiteSpace: 'nowrap' }}>ps_live_{k.prefix}_…</TableCell>
                    <TableCell>
                      <Box sx={{ display: 'flex', flexWrap: 'wrap', gap: 0.5 }}>
                        {k.scopes.map((s) => (
                          <Chip key={s} size="small" variant="outlined" label={s} />
                        ))}
                      </Box>
                    </TableCell>
                    <TableCell sx={{ ...fromSm, whiteSpace: 'nowrap' }}>
                      {k.expiresAt === null ? 'Never' : isExpired(k) ? <Chip size="small" color="warning" label={`Expired ${formatDateTime(k.expiresAt)}`} /> : formatDateTime(k.expiresAt)}
                    </TableCell>
                    <TableCell sx={{ ...fromSm, whiteSpace: 'nowrap' }}>{k.lastUsedAt ? formatDateTime(k.lastUsedAt) : 'Never'}</TableCell>
                    <TableCell align="right">
                      <Button
                        size="small"
                        color="error"
                        onClick={() => {
                          setRevokeError(null);
                          setToRevoke(k);
                        }}
                        aria-label={`Revoke ${k.name}`}
                      >
                        Revoke
                      </Button>
                    </TableCell>
                  </TableRow>
                ))}
              </TableBody>
            </Table>
          </TableContainer>
        )}
      </Paper>
      <CreateKeyDialog open={isCreating} onClose={() => setCreating(false)} />
      <ConfirmDialog
        open={toRevoke !== null}
        title="Revoke API key"
        tone="error"
        confirmLabel="Revoke"
        cancelLabel="Cancel"
        isBusy={revoke.isPending}
        onCancel={() => setToRevoke(null)}
        onConfirm={confirmRevoke}
        footer={revokeError ? <Alert severity="error" sx={{ mt: 2 }}>{revokeError}</Alert> : null}
      >
        {toRevoke ? ApiKeyMessages.revokeConfirm(toRevoke.name) : ''}
      </ConfirmDialog>
    </PageContainer>
  );
}
