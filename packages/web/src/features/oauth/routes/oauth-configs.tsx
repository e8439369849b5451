import { useEffect, useState } from 'react';
import { Link as RouterLink } from 'react-router';
import Alert from '@mui/material/Alert';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import Card from '@mui/material/Card';
import CardActions from '@mui/material/CardActions';
import CardContent from '@mui/material/CardContent';
import Chip from '@mui/material/Chip';
import Dialog from '@mui/material/Dialog';
import DialogContent from '@mui/material/DialogContent';
import DialogTitle from '@mui/material/DialogTitle';
import Paper from '@mui/material/Paper';
import Skeleton from '@mui/material/Skeleton';
import Typography from '@mui/material/Typography';
import AddIcon from '@mui/icons-material/Add';
import DeleteOutlineIcon from '@mui/icons-material/DeleteOutlineOutlined';
import EditOutlinedIcon from '@mui/icons-material/EditOutlined';
import { Limits, OAuthMessages, truncateValue, type TOAuthApp } from '@persona/contract';
import { ConfirmDialog } from '../../../components/confirm-dialog';
import { PageContainer } from '../../../components/page-container';
import { PageHeader } from '../../../components/page-header';
import { errorMessages } from '../../../lib/api-client';
import { formatDateTime } from '../../../lib/format-date';
import { paths } from '../../../lib/paths';
import { showToast } from '../../../lib/toast';
import { useDocumentTitle } from '../../../lib/use-document-title';
import { useDeleteOAuthApp } from '../api/delete-oauth-app';
import { useOAuthApps } from '../api/list-oauth-apps';
import { OAuthWizard } from '../components/oauth-wizard';

function DetailTable({ app }: { app: TOAuthApp }) {
  const rows: [string, string, boolean?][] = [
    ['App Id', String(app.appId)],
    ['Client Id', truncateValue(app.clientId), true],
    ['Client Secret', truncateValue(app.clientSecret), true],
    ['OAuth URL', app.oauthURL],
    ['Token Issue URL', app.tokenIssueURL],
    ['Callback URL', app.callbackURL],
    ['Created', formatDateTime(app.created)],
    ['Updated', formatDateTime(app.updated)],
  ];
  return (
    <Box component="table" sx={{ width: '100%', borderCollapse: 'collapse', '& th, & td': { py: 0.75, borderBottom: 1, borderColor: 'divider', textAlign: 'left', verticalAlign: 'top', fontSize: 14 } }}>
      <tbody>
        {rows.map(([label, value, isMono]) => (
          <tr key={label}>
            <Box component="th" scope="row" sx={{ color: 'text.secondary', fontWeight: 500, pr: 2, width: 130, whiteSpace: 'nowrap' }}>
              {label}
            </Box>
            <Box component="td" sx={{ overflowWrap: 'anywhere', fontFamily: isMono ? 'ui-monospace, SFMono-Regular, Menlo, Consolas, monospace' : undefined }}>
              {value}
            </Box>
          </tr>
        ))}
      </tbody>
    </Box>
  );
}

/** /oauthconfigs: the account's OAuth configs as cards, with Edit (the wizard in a dialog) and Delete. */
export function OauthConfigsRoute() {
  useDocumentTitle('OAuth Configs');
  const apps = useOAuthApps();
  const remove = useDeleteOAuthApp();
  const [editing, setEditing] = useState<TOAuthApp | null>(null);
  const [isEditSaved, setIsEditSaved] = useState(false);
  const [toDelete, setToDelete] = useState<TOAuthApp | null>(null);
  const [deleteError, setDeleteError] = useState<string | null>(null);

  // Edit closes 3 s after it succeeded.
  useEffect(() => {
    if (!isEditSaved) return;
    const timer = setTimeout(() => {
      setEditing(null);
      setIsEditSaved(false);
    }, Limits.successDialogMs);
    return () => clearTimeout(timer);
  }, [isEditSaved]);

  const confirmDelete = async () => {
    if (!toDelete) return;
    setDeleteError(null);
    try {
      await remove.mutateAsync(toDelete.appId);
      void showToast(OAuthMessages.deleted, 'success', { id: 'oauth-config' });
      setToDelete(null);
    } catch (error) {
      setDeleteError(errorMessages(error).join(' '));
      void showToast(OAuthMessages.deleteFailed, 'error', { id: 'oauth-config' });
    }
  };

  return (
    <PageContainer>
      <PageHeader
        title="OAuth Configs"
        description="Identity services your avatars can ask visitors to sign in with."
        actions={
          <Button component={RouterLink} to={paths.addOauthApp} variant="contained" startIcon={<AddIcon />}>
            Create OAuth Config
          </Button>
        }
      />
      {apps.isPending ? (
        <Box sx={{ display: 'grid', gap: 2, gridTemplateColumns: { xs: '1fr', md: '1fr 1fr' } }}>
          <Skeleton variant="rounded" height={320} />
          <Skeleton variant="rounded" height={320} />
        </Box>
      ) : apps.isError ? (
        <Alert
          severity="error"
          action={
            <Button color="inherit" size="small" onClick={() => void apps.refetch()}>
              Retry
            </Button>
          }
        >
          {OAuthMessages.loadFailed}: {errorMessages(apps.error).join(' ')}
        </Alert>
      ) : apps.data.length === 0 ? (
        <Paper variant="outlined" sx={{ p: { xs: 3, sm: 5 }, textAlign: 'center' }}>
          <Typography color="text.secondary">{OAuthMessages.emptyList}</Typography>
        </Paper>
      ) : (
        <Box component="ul" sx={{ listStyle: 'none', p: 0, m: 0, display: 'grid', gap: 2, gridTemplateColumns: { xs: 'minmax(0, 1fr)', md: 'repeat(2, minmax(0, 1fr))' } }}>
          {apps.data.map((app) => (
            <Card component="li" key={app.appId} variant="outlined" aria-label={app.appName}>
              <CardContent>
                <Box sx={{ display: 'flex', alignItems: 'center', gap: 1, mb: 1.5 }}>
                  <Typography variant="h5" component="h2" sx={{ flex: 1, minWidth: 0, overflowWrap: 'anywhere' }}>
                    {app.appName}
                  </Typography>
                  <Chip label={app.partner} color="primary" variant="outlined" size="small" />
                </Box>
                <DetailTable app={app} />
              </CardContent>
              <CardActions sx={{ px: 2, pb: 2 }}>
                <Button startIcon={<EditOutlinedIcon />} onClick={() => setEditing(app)} aria-label={`Edit ${app.appName}`}>
                  Edit
                </Button>
                <Button color="error" startIcon={<DeleteOutlineIcon />} onClick={() => { setDeleteError(null); setToDelete(app); }} aria-label={`Delete ${app.appName}`}>
                  Delete
                </Button>
              </CardActions>
            </Card>
          ))}
        </Box>
      )}

      <Dialog open={editing !== null} onClose={() => setEditing(null)} maxWidth="sm" fullWidth aria-labelledby="edit-oauth-title">
        <DialogTitle id="edit-oauth-title" sx={{ fontWeight: 700 }}>
          Edit {editing?.appName}
        </DialogTitle>
        <DialogContent>
          {editing ? (
            <OAuthWizard
              key={editing.appId}
              app={editing}
              onSaved={() => {
                setIsEditSaved(true);
                void showToast(OAuthMessages.updated, 'success', { id: 'oauth-config' });
              }}
              successMessage={isEditSaved ? <Alert severity="success">{OAuthMessages.updated}</Alert> : undefined}
            />
          ) : null}
        </DialogContent>
      </Dialog>

      <ConfirmDialog
        open={toDelete !== null}
        title="Delete OAuth config"
        tone="error"
        confirmLabel="Delete"
        cancelLabel="Cancel"
        isBusy={remove.isPending}
        onCancel={() => setToDelete(null)}
        onConfirm={() => void confirmDelete()}
        footer={deleteError ? <Alert severity="error" sx={{ mt: 2 }}>{deleteError}</Alert> : null}
      >
        {toDelete ? OAuthMessages.deleteConfirm(toDelete.appName) : ''}
      </ConfirmDialog>
    </PageContainer>
  );
}
