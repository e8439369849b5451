import type { ReactNode } from 'react';
import { Link as RouterLink } from 'react-router';
import Box from '@mui/material/Box';
import Link from '@mui/material/Link';
import Paper from '@mui/material/Paper';
import Typography from '@mui/material/Typography';
import { PageContainer } from '../../../components/page-container';
import { PageHeader } from '../../../components/page-header';
import { paths } from '../../../lib/paths';
import { usePublicConfig } from '../../../lib/config';
import { useDocumentTitle } from '../../../lib/use-document-title';
import { oauthHelp, type OAuthHelpKey } from '../help';

const FIELDS: OAuthHelpKey[] = ['appName', 'partner', 'clientId', 'clientSecret', 'oauthURL', 'tokenIssueURL', 'callbackURL'];

function Section({ title, children }: { title: string; children: ReactNode }) {
  return (
    // Long URLs and code break anywhere rather than push the page sideways on a phone.
    <Paper variant="outlined" component="section" sx={{ p: { xs: 2, sm: 3 }, mb: 2.5, minWidth: 0, overflowWrap: 'anywhere', '& code': { overflowWrap: 'anywhere' } }}>
      <Typography variant="h4" component="h2" sx={{ mb: 1.5 }}>
        {title}
      </Typography>
      {children}
    </Paper>
  );
}

/** /oauthhelp: what each field is, and where Google's values come from. */
export function OauthHelpRoute() {
  useDocumentTitle('OAuth Help');
  // Registered with the identity service: the server's PUBLIC_URL, as in each config's Callback URL.
  const callback = `${usePublicConfig().publicUrl ?? window.location.origin}/api/oauth/callback/<config id>`;
  return (
    <PageContainer maxWidth="md">
      <PageHeader title="OAuth Help" description="How to register the portal with an identity service and fill in the OAuth details." />

      <Section title="How the sign-in works">
        <Box component="ol" sx={{ pl: 3, m: 0, '& li': { mb: 1, lineHeight: 1.7 } }}>
          <li>A visitor opens an avatar that requires sign-in and is sent to the identity service’s <strong>OAuth URL</strong>.</li>
          <li>They sign in there and agree to share their basic profile.</li>
          <li>The service sends them back to the <strong>Callback URL</strong> with a one-time code.</li>
          <li>The portal’s server exchanges the code at the <strong>Token Issue URL</strong>, using the <strong>Client Id</strong> and <strong>Client Secret</strong>, and lets the visitor in.</li>
        </Box>
      </Section>

      <Section title="Google: where the values come from">
        <Box component="ol" sx={{ pl: 3, m: 0, '& li': { mb: 1, lineHeight: 1.7 } }}>
          <li>
            Open the Google Cloud console, choose (or create) a project, and go to <strong>APIs &amp; Services › OAuth consent screen</strong>. Fill in the app name and support e-mail; add the
            scopes <code>openid</code>, <code>email</code> and <code>profile</code>.
          </li>
          <li>
            Go to <strong>APIs &amp; Services › Credentials › Create credentials › OAuth client ID</strong>, application type <strong>Web application</strong>.
          </li>
          <li>
            Under <strong>Authorized redirect URIs</strong> add the Callback URL of your config: <code style={{ overflowWrap: 'anywhere' }}>{callback}</code>. Create the config here first (the id is in its card),
            or open <em>Edit</em> on it: the wizard shows the exact URL in its <em>Callback URL</em> step.
          </li>
          <li>
            Google shows the <strong>Client ID</strong> (ending in <code>.apps.googleusercontent.com</code>) and the <strong>Client secret</strong>: paste them into <em>OAuth Details</em>.
          </li>
          <li>
            Endpoints (filled in when you choose Google): OAuth URL <code>https://accounts.google.com/o/oauth2/v2/auth</code>, Token Issue URL <code>https://oauth2.googleapis.com/token</code>.
          </li>
        </Box>
      </Section>

      <Section title="SmartPension">
        <Typography sx={{ lineHeight: 1.7 }}>
          SmartPension registers OAuth clients for its partners. Send them the Callback URL of your config; they give you the Client Id, the Client Secret and the two endpoint URLs to enter in
          <em> OAuth Details</em>.
        </Typography>
      </Section>

      <Section title="Every field">
        <Box component="dl" sx={{ m: 0, display: 'grid', gap: 2 }}>
          {FIELDS.map((key) => (
            <Box key={key}>
              <Typography component="dt" sx={{ fontWeight: 700 }}>
                {oauthHelp[key].title}
              </Typography>
              <Typography component="dd" color="text.secondary" sx={{ m: 0, lineHeight: 1.7 }}>
                {oauthHelp[key].description} {oauthHelp[key].usefulness}
              </Typography>
            </Box>
          ))}
        </Box>
      </Section>

      <Typography>
        <Link component={RouterLink} to={paths.addOauthApp}>
          Create an OAuth config
        </Link>{' '}
        ·{' '}
        <Link component={RouterLink} to={paths.oauthConfigs}>
          Your OAuth configs
        </Link>
      </Typography>
    </PageContainer>
  );
}
