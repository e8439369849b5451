import { useState } from 'react';
import Alert from '@mui/material/Alert';
import Box from '@mui/material/Box';
import Chip from '@mui/material/Chip';
import Paper from '@mui/material/Paper';
import Tab from '@mui/material/Tab';
import Tabs from '@mui/material/Tabs';
import Typography from '@mui/material/Typography';
import { NlpEngineName, SetupModeLabel, type TNlpEngine, type TSetupMode } from '@persona/contract';
import { useEditorSession } from './editor-session';

/**
 * The Brain tab shows the avatar's current mode and engine. Its forms (engines, speech, knowledge
 * and functions) arrive with a later release; until then every stored brain setting is kept as it is.
 */
export function BrainTab() {
  const { agent } = useEditorSession();
  const [subTab, setSubTab] = useState<'foundations' | 'knowledge' | 'functions'>('foundations');
  const mode = (agent?.setupMode ?? 0) as TSetupMode;
  const engine = (agent?.nlpEngine ?? 0) as TNlpEngine;
  const collections = ((agent?.customData as { collection_ids?: number[] } | undefined)?.collection_ids ?? []).length;
  const functions = agent?.functions?.length ?? 0;
  return (
    <Box>
      <Tabs
        value={subTab}
        onChange={(_e, v: typeof subTab) => setSubTab(v)}
        aria-label="Brain"
        sx={{ mb: 2, borderBottom: 1, borderColor: 'divider', '& .MuiTab-root': { fontWeight: 700, fontSize: '0.78rem', minWidth: 0, px: 1.5 } }}
      >
        <Tab value="foundations" label="FOUNDATIONS" />
        <Tab value="knowledge" label="KNOWLEDGE BASE" />
        <Tab value="functions" label="FUNCTIONS" />
      </Tabs>
      <Alert severity="info" sx={{ mb: 2 }}>
        Brain settings are read-only for now: editing engines, speech, knowledge and functions comes in a coming release. Saving other tabs
        keeps every brain setting exactly as it is.
      </Alert>
      {subTab === 'foundations' ? (
        <Box sx={{ display: 'grid', gap: 1.5, gridTemplateColumns: { xs: '1fr', md: '1fr 1fr' } }}>
          <Fact label="Mode" value={SetupModeLabel[mode] ?? 'Unknown'} extra={<Chip size="small" color="primary" variant="outlined" label="currently set" />} />
          <Fact label="Avatar Engine" value={NlpEngineName[engine] ?? agent?.nlpEngineName ?? 'Unknown'} />
          {engine === 0 ? (
            <Typography variant="body2" color="text.secondary" sx={{ gridColumn: '1 / -1' }}>
              Echo-back mode: the avatar repeats what it hears. That is how every new avatar starts.
            </Typography>
          ) : null}
        </Box>
      ) : subTab === 'knowledge' ? (
        <Fact label="Linked knowledge base collections" value={String(collections)} />
      ) : (
        <Fact label="Linked functions" value={String(functions)} />
      )}
    </Box>
  );
}

function Fact({ label, value, extra }: { label: string; value: string; extra?: React.ReactNode }) {
  return (
    <Paper variant="outlined" sx={{ p: 2 }}>
      <Typography variant="caption" color="text.secondary" sx={{ textTransform: 'uppercase', letterSpacing: '0.04em', fontWeight: 700 }}>
        {label}
      </Typography>
      <Box sx={{ display: 'flex', alignItems: 'center', gap: 1, mt: 0.5, flexWrap: 'wrap' }}>
        <Typography sx={{ fontWeight: 600 }} data-testid={`brain-${label.toLowerCase().replace(/\s+/g, '-')}`}>
          {value}
        </Typography>
        {extra}
      </Box>
    </Paper>
  );
}
