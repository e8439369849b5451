import { useState } from 'react';
import { useFormContext, useWatch } from 'react-hook-form';
import Box from '@mui/material/Box';
import Chip from '@mui/material/Chip';
import Typography from '@mui/material/Typography';
import { ApprovalStatus, approvalStatusName, type TInfoPanelItem } from '@persona/contract';
import { TextLink } from '../../../../../components/text-link';
import { paths } from '../../../../../lib/paths';
import { useOwnFunctions } from '../../../api/list-own-functions';
import { isFunctionsEnabled, LINKING_ENGINES, LinkMessages, type LinkValues } from '../../../lib/brain-links';
import { useOptionalEditorSession } from '../editor-session';
import { LinkedList, PickDialog, type LinkRow } from './link-list';
import { useRealtimeSetting } from './use-realtime-setting';

type Form = LinkValues & { nlpEngine: number };

export const functionsHelp: TInfoPanelItem = {
  title: 'Functions',
  description:
    'Python functions the avatar may call during a conversation (weather, bookings, your own APIs). Only your own functions that a moderator approved can be linked; a newly linked one is pending until you save the avatar.',
  possibleValues: [
    { name: 'Approved', type: 'approvalStatus 1', description: 'Can be linked.' },
    { name: 'Pending / Rejected', type: 'approvalStatus 0 / 2', description: 'Not offered until approved.' },
    { name: 'Conditions', type: 'condition', description: 'Large Language Model or Persona Studio Realtime engine, and Realtime on.' },
  ],
  usefulness: 'Functions let the avatar act and fetch live data instead of only talking.',
};

/** Brain › Functions: linked approved functions and the 'Function List' dialog (spec section 2). */
export interface FunctionsSubTabProps {
  onHelp?: (item: TInfoPanelItem) => void;
  /** The Realtime setting when the caller holds it; by default the Advanced tab's value. */
  isRealtime?: boolean;
}

export function FunctionsSubTab({ onHelp, isRealtime: realtimeProp }: FunctionsSubTabProps) {
  const { control, setValue } = useFormContext<Form>();
  const engine = Number(useWatch({ control, name: 'nlpEngine' }));
  const linked = (useWatch({ control, name: 'functions' }) as number[] | undefined) ?? [];
  const realtimeSetting = useRealtimeSetting();
  const isRealtime = realtimeProp ?? realtimeSetting;
  const saved = new Set(useOptionalEditorSession()?.agent?.functions ?? []);
  const isEnabled = isFunctionsEnabled(engine, isRealtime);
  const [isOpen, setOpen] = useState(false);
  const functions = useOwnFunctions();
  const byId = new Map((functions.data ?? []).map((f) => [f.id, f]));
  const rows: LinkRow[] = linked.map((id) => {
    const f = byId.get(id);
    const isPending = !saved.has(id);
    const badge = isPending ? (
      <Chip size="small" color="warning" variant="outlined" label={LinkMessages.pending} sx={{ height: 20, fontSize: 11 }} />
    ) : f && f.approvalStatus !== ApprovalStatus.Approved ? (
      <Chip size="small" color="default" variant="outlined" label={approvalStatusName(f.approvalStatus)} sx={{ height: 20, fontSize: 11 }} />
    ) : undefined;
    return f ? { id, name: f.name, badge } : { id, name: `Function #${id}`, badge, secondary: functions.isSuccess ? 'Not found: it may have been deleted.' : undefined };
  });
  const offered = (functions.data ?? [])
    .filter((f) => f.approvalStatus === ApprovalStatus.Approved && !linked.includes(f.id))
    .map((f) => ({ id: f.id, name: f.name, secondary: f.template ? `From the ${f.template} template` : undefined }));
  const set = (next: number[]) => setValue('functions', next, { shouldDirty: true });
  const reason = LINKING_ENGINES.includes(engine) ? LinkMessages.functionsDisabledRealtime : LinkMessages.functionsDisabledEngine;
  return (
    <Box sx={{ display: 'grid', gap: 2 }}>
      <LinkedList
        title="Functions"
        emptyText="No functions linked."
        rows={rows}
        isEnabled={isEnabled}
        disabledReason={reason}
        addLabel="Add functions"
        onAdd={() => setOpen(true)}
        onRemove={(id) => set(linked.filter((x) => x !== id))}
        onHelp={() => onHelp?.(functionsHelp)}
        footer={
          <Typography variant="body2" sx={{ mt: 1.5 }}>
            <TextLink to={paths.functions}>Manage your functions</TextLink>
          </Typography>
        }
      />
      <PickDialog
        open={isOpen}
        title="Function List"
        rows={offered}
        isLoading={functions.isPending}
        error={functions.isError ? 'Failed to load your functions.' : undefined}
        emptyText="No approved functions to link. Functions can be linked once a moderator approves them."
        onClose={() => setOpen(false)}
        onPick={(ids) => set([...linked, ...ids])}
      />
    </Box>
  );
}
