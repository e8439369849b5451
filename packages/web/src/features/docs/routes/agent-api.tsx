import { Link as RouterLink } from 'react-router';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import Chip from '@mui/material/Chip';
import Link from '@mui/material/Link';
import Typography from '@mui/material/Typography';
import DownloadIcon from '@mui/icons-material/Download';
import { PageContainer } from '../../../components/page-container';
import { usePublicConfig } from '../../../lib/config';
import { paths } from '../../../lib/paths';
import { useDocumentTitle } from '../../../lib/use-document-title';
// The customer document and the example agent the repository ships (docs/): one source, served here.
import agentApiSource from '../../../../../../docs/agent-api.md?raw';
import echoAgentSource from '../../../../../../docs/examples/echo-agent.mjs?raw';
import { CodeBlock } from '../components/code-block';
import { Markdown, type LinkResolver } from '../components/markdown';

export const EXAMPLE_ID = 'example-agent';
const PLACEHOLDER_ORIGIN = 'https://studio.example.com';

/** The document's links: the example is on this page; files that are not served show as text. */
const resolveLink: LinkResolver = (href) => {
  if (href.startsWith('#')) return { href };
  if (href === 'examples/echo-agent.mjs') return { href: `#${EXAMPLE_ID}` };
  if (/^https:\/\//.test(href)) return { href };
  return null;
};

/** /docs/agent-api: the agent API reference (docs/agent-api.md) and the example agent, with this portal's address. */
export function AgentApiRoute() {
  useDocumentTitle('Agent API');
  const config = usePublicConfig();
  const origin = config.publicUrl ?? window.location.origin;
  const wsOrigin = origin.replace(/^http/, 'ws');
  const source = agentApiSource
    .split(PLACEHOLDER_ORIGIN)
    .join(origin)
    .split('wss://<portal>')
    .join(wsOrigin)
    .split('node docs/examples/echo-agent.mjs')
    .join('node echo-agent.mjs')
    // The design notes are the repository's, not served here.
    .replace(/^Design notes: .*\n/m, '');
  const download = `data:text/javascript;charset=utf-8,${encodeURIComponent(echoAgentSource)}`;
  return (
    <PageContainer>
      <Box component="article" sx={{ minWidth: 0, maxWidth: 860, mx: 'auto' }}>
        <Box sx={{ display: 'flex', gap: 1, flexWrap: 'wrap', alignItems: 'center', mb: 1.5 }}>
          <Chip label="Documentation" color="primary" variant="outlined" size="small" sx={{ fontWeight: 600 }} />
          <Link component={RouterLink} to={`${paths.docs}#agents`} variant="body2">
            Back to the guide
          </Link>
        </Box>
        <Markdown source={source} resolveLink={resolveLink} codeLabel={(lang, i) => (lang === 'sh' ? 'Running the example agent' : `Example ${i + 1}${lang ? ` (${lang})` : ''}`)} />
        <Typography id={EXAMPLE_ID} variant="h4" component="h2" sx={{ mt: 4, mb: 1.5, scrollMarginTop: 88 }}>
          The example agent
        </Typography>
        <Typography sx={{ mb: 2, lineHeight: 1.7 }}>
          <code>echo-agent.mjs</code> needs Node 18 or later and the <code>ws</code> package (<code>npm install ws</code>).
          The tests of {config.productName} run it against the portal and its avatar server.
        </Typography>
        <Button component="a" href={download} download="echo-agent.mjs" variant="outlined" size="small" startIcon={<DownloadIcon />} sx={{ mb: 2 }}>
          Download echo-agent.mjs
        </Button>
        <CodeBlock code={echoAgentSource} label="echo-agent.mjs" />
      </Box>
    </PageContainer>
  );
}
