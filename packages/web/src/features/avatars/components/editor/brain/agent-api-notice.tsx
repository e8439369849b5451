import { useWatch } from 'react-hook-form';
import { Link as RouterLink } from 'react-router';
import Alert from '@mui/material/Alert';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import Link from '@mui/material/Link';
import Typography from '@mui/material/Typography';
import OpenInNewIcon from '@mui/icons-material/OpenInNew';
import { AgentApi, LiveMessages } from '@persona/contract';
import { usePublicConfig } from '../../../../../lib/config';
import { paths } from '../../../../../lib/paths';
import { useAccountInfo } from '../../../api/get-account-info';
import { useEditorSession } from '../editor-session';

const code = { fontFamily: 'ui-monospace, SFMono-Regular, Menlo, Consolas, monospace', fontSize: '0.85em', overflowWrap: 'anywhere' } as const;

/** Whether the avatar's encryption key can authenticate an agent (only a key of the owner's own can). */
function KeyState() {
  const { advancedForm, changeTab } = useEditorSession();
  const encKeyId = useWatch({ control: advancedForm.control, name: 'encKeyId' });
  const account = useAccountInfo();
  const key = account.data?.encKeys?.find((k) => String(k.id) === String(encKeyId));
  // Under the message, not beside it: the editor's column is narrow at its smallest width.
  const toAdvanced = (
    <Box sx={{ mt: 0.5 }}>
      <Button size="small" color="inherit" variant="outlined" onClick={() => void changeTab('advanced')}>
        Open ADVANCED
      </Button>
    </Box>
  );
  if (!encKeyId) {
    return (
      <Alert severity="warning" data-testid="agent-key-missing">
        The avatar has no encryption key yet, so no agent can connect: choose a key of your own under ADVANCED → Access → Encryption.
        {toAdvanced}
      </Alert>
    );
  }
  if (key?.defaultKey) {
    return (
      <Alert severity="warning" data-testid="agent-key-default">
        The account&apos;s default key cannot authenticate an agent (only the server holds its private key): choose a key of your own under ADVANCED → Access → Encryption.
        {toAdvanced}
      </Alert>
    );
  }
  return (
    <Typography variant="body2" color="text.secondary" data-testid="agent-key-ok">
      Your agent signs its tokens with the private key of {key ? <strong>{key.name}</strong> : 'the encryption key chosen under ADVANCED'} (shown once, when you created it).
    </Typography>
  );
}

/**
 * The Ten and Custom STT/LLM/TTS engines (None mode): the avatar is the face of the owner's own
 * agent, which connects through the agent API (ADR 072). What the owner must do, the addresses
 * their agent uses, what visitors see without it, and the full reference (served at /docs/agent-api).
 */
export function AgentApiNotice() {
  const { agent, mode } = useEditorSession();
  const config = usePublicConfig();
  const origin = config.publicUrl ?? window.location.origin;
  const dispatchUrl = `${origin.replace(/^http/, 'ws')}/api/agent/ws`;
  const avatarId = mode.kind === 'edit' && agent ? String(agent.id) : null;
  const maxMinutes = Math.round(AgentApi.maxTokenSeconds / 60);
  return (
    <Box component="section" aria-label="Your agent" sx={{ display: 'grid', gap: 1.5, minWidth: 0 }}>
      <Typography variant="subtitle1" component="h4" sx={{ fontWeight: 700 }}>
        Your agent
      </Typography>
      <Typography variant="body2" color="text.secondary">
        This avatar is the face of an agent you run yourself (a TEN graph, a Pipecat or LiveKit pipeline, a script). Your agent connects to{' '}
        {config.productName} through the agent API; the avatar shows and lip-syncs what it answers.
      </Typography>
      <Box component="ol" sx={{ m: 0, pl: 2.5, display: 'grid', gap: 1, typography: 'body2', minWidth: 0 }}>
        <li>Give the avatar an encryption key of its own (ADVANCED → Access → Encryption).</li>
        <li>
          Your agent signs a token with that key&apos;s private key (<Box component="code" sx={code}>ES256</Box>, <Box component="code" sx={code}>aud</Box>{' '}
          <Box component="code" sx={code}>persona-agent</Box>, <Box component="code" sx={code}>sub</Box>{' '}
          {avatarId ? (
            <Box component="code" sx={code} data-testid="agent-avatar-id">
              &quot;{avatarId}&quot;
            </Box>
          ) : (
            'the avatar’s id, shown once it is saved'
          )}
          , valid at most {maxMinutes} minutes) and keeps a WebSocket open to{' '}
          <Box component="code" sx={code} data-testid="agent-dispatch-url">
            {dispatchUrl}
          </Box>{' '}
          with <Box component="code" sx={code}>Authorization: Bearer &lt;token&gt;</Box>.
        </li>
        <li>Each visitor&apos;s session is offered to it: it joins, hears the visitor (their audio, or transcripts on request) and answers with audio, or with text for the avatar&apos;s own voice.</li>
      </Box>
      <KeyState />
      <Typography variant="body2" color="text.secondary">
        While no agent is connected, visitors read: <em>{LiveMessages['agent-not-connected']}</em>
      </Typography>
      <Typography variant="body2">
        <Link component={RouterLink} to={paths.agentApi} target="_blank" rel="noopener">
          Agent API reference and example agent
          <OpenInNewIcon aria-hidden sx={{ fontSize: '1em', verticalAlign: '-0.125em', ml: 0.5 }} />
        </Link>
      </Typography>
    </Box>
  );
}
