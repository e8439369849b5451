import { Controller, useWatch } from 'react-hook-form';
import Box from '@mui/material/Box';
import Chip from '@mui/material/Chip';
import FormControlLabel from '@mui/material/FormControlLabel';
import MenuItem from '@mui/material/MenuItem';
import Paper from '@mui/material/Paper';
import Radio from '@mui/material/Radio';
import RadioGroup from '@mui/material/RadioGroup';
import TextField from '@mui/material/TextField';
import Typography from '@mui/material/Typography';
import { EnginesPerMode, NlpEngine, NlpEngineName, SetupMode, SetupModeLabel, type TInfoPanelItem, type TNlpEngine, type TSetupMode } from '@persona/contract';
import { brainValuesOf, formEngine, hasSpeechSections, withEngine, withSetupMode, type BrainValues } from '../../../lib/brain-form';
import { useEditorSession } from '../editor-session';
import { AgentApiNotice } from './agent-api-notice';
import { DialogflowForm, ElevenLabsForm, LlmForm, RealtimeForm, RestEndpointForm } from './engine-forms';
import { HelpArea } from './fields';
import { SpeechForms } from './speech-forms';

const MODES = [SetupMode.Simple, SetupMode.Composite, SetupMode.SpeechToSpeech, SetupMode.None] as const;
const GROUPS = ['setupMode', 'nlpEngine', 'llmDetails', 'restEndpoint', 'dialogFlow', 'trulienceRealtime', 'elevenLabsConversationAI', 'sttDetails', 'ttsDetails'] as const;

function Section({ title, children, label }: { title: string; children: React.ReactNode; label?: string }) {
  return (
    <Paper variant="outlined" component="section" aria-label={label ?? title} sx={{ p: { xs: 2, md: 2.5 } }}>
      <Typography variant="h6" component="h3" sx={{ mb: 1.5 }}>
        {title}
      </Typography>
      {children}
    </Paper>
  );
}

/** Puts a whole new set of values into the form (a mode or engine change). */
function useApply() {
  const { brainForm } = useEditorSession();
  return (next: BrainValues) => {
    for (const key of GROUPS) brainForm.setValue(key, next[key] as never, { shouldDirty: true });
    brainForm.clearErrors();
  };
}

function ModeField() {
  const { brainForm, agent } = useEditorSession();
  const apply = useApply();
  const savedMode = (agent?.setupMode ?? SetupMode.Simple) as TSetupMode;
  return (
    <HelpArea help="mode">
      <Controller
        control={brainForm.control}
        name="setupMode"
        render={({ field }) => (
          <RadioGroup
            aria-label="Mode"
            value={String(field.value)}
            onChange={(e) => apply(withSetupMode(brainValuesOf(agent ?? {}), brainForm.getValues(), Number(e.target.value) as TSetupMode))}
            sx={{ display: 'grid', gap: 0.5, gridTemplateColumns: { xs: '1fr', md: 'repeat(2, minmax(0, 1fr))' } }}
          >
            {MODES.map((m) => (
              <FormControlLabel
                key={m}
                value={String(m)}
                control={<Radio size="small" />}
                label={
                  <Box component="span" sx={{ display: 'inline-flex', alignItems: 'center', gap: 1, flexWrap: 'wrap' }}>
                    <span>{SetupModeLabel[m]}</span>
                    {m === savedMode ? <Chip size="small" color="primary" variant="outlined" label="currently set" /> : null}
                  </Box>
                }
                sx={{ m: 0, border: 1, borderColor: field.value === m ? 'primary.main' : 'divider', borderRadius: 2, pr: 1.5, py: 0.25 }}
              />
            ))}
          </RadioGroup>
        )}
      />
    </HelpArea>
  );
}

function EngineField() {
  const { brainForm, agent } = useEditorSession();
  const apply = useApply();
  const mode = useWatch({ control: brainForm.control, name: 'setupMode' });
  const savedEngine = formEngine(agent?.nlpEngine ?? 0);
  return (
    <HelpArea help="engine">
      <Controller
        control={brainForm.control}
        name="nlpEngine"
        render={({ field, fieldState }) => (
          <TextField
            select
            label="Avatar Engine"
            value={String(field.value)}
            onChange={(e) => apply(withEngine(brainForm.getValues(), Number(e.target.value) as TNlpEngine))}
            error={fieldState.invalid}
            helperText={fieldState.error?.message}
            size="small"
            fullWidth
            sx={{ maxWidth: 420 }}
          >
            {EnginesPerMode[mode].map((engine) => (
              <MenuItem key={engine} value={String(engine)}>
                {NlpEngineName[engine]}
                {engine === savedEngine && mode === agent?.setupMode ? ' (currently set)' : ''}
              </MenuItem>
            ))}
          </TextField>
        )}
      />
    </HelpArea>
  );
}

function EngineForm({ engine }: { engine: TNlpEngine }) {
  const { advancedForm } = useEditorSession();
  const isRealtime = useWatch({ control: advancedForm.control, name: 'realtime' });
  switch (engine) {
    case NlpEngine.EchoTest:
      return <Typography color="text.secondary">Echo-back mode: the avatar repeats what it hears. That is how every new avatar starts.</Typography>;
    case NlpEngine.LargeLanguageModel:
      return <LlmForm isRealtime={isRealtime} />;
    case NlpEngine.RestEndpoint:
      return <RestEndpointForm />;
    case NlpEngine.DialogflowES:
      return <DialogflowForm isCx={false} />;
    case NlpEngine.DialogflowCX:
      return <DialogflowForm isCx />;
    case NlpEngine.TrulienceRealtime:
      return <RealtimeForm />;
    case NlpEngine.ElevenLabsConversationAI:
      return <ElevenLabsForm />;
    case NlpEngine.Ten:
    case NlpEngine.CUSTOM_STT_LLM_TTS:
      // Bring your own agent (ADR 072): what the owner must do for it to connect.
      return <AgentApiNotice />;
    default:
      return <Typography color="text.secondary">The framework runs the whole conversation; it has no settings here.</Typography>;
  }
}

/** FOUNDATIONS: the mode, the engine and its form, then (Simple and Composite) speech. */
export function Foundations({ onHelp }: { onHelp?: (item: TInfoPanelItem) => void }) {
  const { brainForm } = useEditorSession();
  const mode = useWatch({ control: brainForm.control, name: 'setupMode' });
  const engine = useWatch({ control: brainForm.control, name: 'nlpEngine' });
  return (
    <Box component="form" noValidate onSubmit={(e) => e.preventDefault()} aria-label="Foundations" sx={{ display: 'grid', gap: 2 }}>
      <Section title="Mode">
        <ModeField />
      </Section>
      <Section title="Avatar Engine">
        <Box sx={{ display: 'grid', gap: 2 }}>
          <EngineField />
          <EngineForm engine={engine} />
        </Box>
      </Section>
      {/* Speech to Text and Text to Speech, Simple and Composite only (they hand their help to the panel). */}
      {hasSpeechSections(mode) ? <SpeechForms onHelp={onHelp} /> : null}
    </Box>
  );
}
