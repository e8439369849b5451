import { useEffect, useState } from 'react';
import { useNavigate } from 'react-router';
import Alert from '@mui/material/Alert';
import AlertTitle from '@mui/material/AlertTitle';
import Box from '@mui/material/Box';
import Paper from '@mui/material/Paper';
import { Limits, OAuthMessages, type TOAuthApp } from '@persona/contract';
import { PageContainer } from '../../../components/page-container';
import { PageHeader } from '../../../components/page-header';
import { InfoPanel, useInfoPanel } from '../../../components/side-panel';
import { paths } from '../../../lib/paths';
import { useDocumentTitle } from '../../../lib/use-document-title';
import { OAuthWizard } from '../components/oauth-wizard';
import { oauthHelp } from '../help';

/** /addoauthapp: the create wizard; on success a message, then back to /oauthconfigs after 3 s. */
export function AddOauthAppRoute() {
  useDocumentTitle('Create OAuth Config');
  const navigate = useNavigate();
  const info = useInfoPanel(oauthHelp, 'page');
  const [created, setCreated] = useState<TOAuthApp | null>(null);

  useEffect(() => {
    if (!created) return;
    const timer = setTimeout(() => void navigate(paths.oauthConfigs), Limits.successDialogMs);
    return () => clearTimeout(timer);
  }, [created, navigate]);

  return (
    <PageContainer>
      <PageHeader title="Create OAuth Config" description="Connect an identity service in two steps: OAuth Info, then OAuth Details." />
      <Box sx={{ display: 'grid', gap: 2.5, alignItems: 'start', gridTemplateColumns: { xs: 'minmax(0, 1fr)', md: 'minmax(0, 1fr) 300px' } }}>
        <Paper variant="outlined" sx={{ p: { xs: 2, sm: 3 } }}>
          <OAuthWizard
            onSaved={(answer) => setCreated(answer.oauthApp)}
            onHelp={info.show}
            successMessage={
              created ? (
                <Alert severity="success" role="status">
                  <AlertTitle>{OAuthMessages.created}</AlertTitle>
                  Register this redirect URI with {created.partner}: <strong style={{ overflowWrap: 'anywhere' }}>{created.callbackURL}</strong>
                  <br />
                  Returning to the list…
                </Alert>
              ) : undefined
            }
          />
        </Paper>
        <InfoPanel item={info.item} />
      </Box>
    </PageContainer>
  );
}
