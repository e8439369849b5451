import { useState } from 'react';
import Alert from '@mui/material/Alert';
import Button from '@mui/material/Button';
import Checkbox from '@mui/material/Checkbox';
import Dialog from '@mui/material/Dialog';
import DialogActions from '@mui/material/DialogActions';
import DialogContent from '@mui/material/DialogContent';
import DialogTitle from '@mui/material/DialogTitle';
import FormControl from '@mui/material/FormControl';
import FormControlLabel from '@mui/material/FormControlLabel';
import FormGroup from '@mui/material/FormGroup';
import FormHelperText from '@mui/material/FormHelperText';
import FormLabel from '@mui/material/FormLabel';
import MenuItem from '@mui/material/MenuItem';
import Switch from '@mui/material/Switch';
import TextField from '@mui/material/TextField';
import { WebhookEventTypes, WebhookLabels, WebhookMessages, type TWebhookEndpoint, type TWebhookEventType } from '@persona/contract';
import type { TAvatarName } from '../api/list-avatar-names';

export interface WebhookDraft {
  url: string;
  avatarId: number | null;
  events: TWebhookEventType[];
  enabled: boolean;
}

const EVENT_HINTS: Record<TWebhookEventType, string> = {
  'session.started': 'A visitor connected.',
  'session.ended': 'Duration, turns, how it ended and the summary.',
  'transcript.ready': 'The whole transcript, once the session has ended.',
  'function.failed': 'A function the avatar called failed (its name and error).',
};

/** Add or edit an endpoint: URL, one avatar or all, the events, on/off. */
export function WebhookFormDialog(props: {
  open: boolean;
  editing: TWebhookEndpoint | null;
  avatars: readonly TAvatarName[];
  isBusy: boolean;
  errors: string[];
  onSave: (draft: WebhookDraft) => void;
  onCancel: () => void;
}) {
  const { editing } = props;
  const [draft, setDraft] = useState<WebhookDraft>(() =>
    editing ? { url: editing.url, avatarId: editing.avatarId, events: editing.events, enabled: editing.enabled } : { url: '', avatarId: null, events: ['session.ended'], enabled: true },
  );
  const [touched, setTouched] = useState(false);
  const urlProblem = draft.url.trim() === '' ? 'Enter the URL that receives the events.' : !/^https?:\/\/\S+$/i.test(draft.url.trim()) ? WebhookMessages.badUrl : null;
  const eventsProblem = draft.events.length === 0 ? WebhookMessages.noEvents : null;
  const toggle = (type: TWebhookEventType) =>
    setDraft((d) => ({ ...d, events: d.events.includes(type) ? d.events.filter((e) => e !== type) : [...d.events, type] }));

  return (
    <Dialog open={props.open} onClose={props.onCancel} maxWidth="sm" fullWidth aria-labelledby="webhook-form-title">
      <form
        noValidate
        onSubmit={(e) => {
          e.preventDefault();
          setTouched(true);
          if (urlProblem || eventsProblem) return;
          props.onSave({ ...draft, url: draft.url.trim() });
        }}
      >
        <DialogTitle id="webhook-form-title">{editing ? 'Edit webhook' : 'Add webhook'}</DialogTitle>
        <DialogContent sx={{ display: 'flex', flexDirection: 'column', gap: 2.5, pt: '8px !important' }}>
          <TextField
            label="Endpoint URL"
            placeholder="https://example.com/persona-webhooks"
            value={draft.url}
            onChange={(e) => setDraft((d) => ({ ...d, url: e.target.value }))}
            error={touched && urlProblem !== null}
            helperText={touched && urlProblem ? urlProblem : 'Events are POSTed here as JSON, signed with the endpoint’s secret.'}
            fullWidth
            autoFocus
          />
          <TextField
            select
            label="Avatar"
            value={draft.avatarId === null ? 'all' : String(draft.avatarId)}
            onChange={(e) => setDraft((d) => ({ ...d, avatarId: e.target.value === 'all' ? null : Number(e.target.value) }))}
            fullWidth
          >
            <MenuItem value="all">All avatars</MenuItem>
            {props.avatars.map((a) => (
              <MenuItem key={a.id} value={String(a.id)}>
                {a.name}
              </MenuItem>
            ))}
          </TextField>
          <FormControl error={touched && eventsProblem !== null} component="fieldset">
            <FormLabel component="legend">Events</FormLabel>
            <FormGroup>
              {WebhookEventTypes.map((type) => (
                <FormControlLabel
                  key={type}
                  control={<Checkbox checked={draft.events.includes(type)} onChange={() => toggle(type)} />}
                  label={
                    <span>
                      {WebhookLabels.event[type]} <code>{type}</code>
                      <FormHelperText component="span" sx={{ display: 'block', m: 0 }}>
                        {EVENT_HINTS[type]}
                      </FormHelperText>
                    </span>
                  }
                />
              ))}
            </FormGroup>
            {touched && eventsProblem ? <FormHelperText>{eventsProblem}</FormHelperText> : null}
          </FormControl>
          <FormControlLabel control={<Switch checked={draft.enabled} onChange={(e) => setDraft((d) => ({ ...d, enabled: e.target.checked }))} />} label="Enabled" />
          {props.errors.length ? <Alert severity="error">{props.errors.join(' ')}</Alert> : null}
        </DialogContent>
        <DialogActions>
          <Button onClick={props.onCancel}>Cancel</Button>
          <Button type="submit" variant="contained" disabled={props.isBusy}>
            {props.isBusy ? 'Saving…' : editing ? 'Save' : 'Add webhook'}
          </Button>
        </DialogActions>
      </form>
    </Dialog>
  );
}
