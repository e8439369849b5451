import { useState } from 'react';
import { useFormContext, useWatch } from 'react-hook-form';
import Box from '@mui/material/Box';
import Typography from '@mui/material/Typography';
import type { TInfoPanelItem } from '@persona/contract';
import { TextLink } from '../../../../../components/text-link';
import { paths } from '../../../../../lib/paths';
import { useOwnCollections } from '../../../api/list-own-collections';
import { isKnowledgeEnabled, LinkMessages, type LinkValues } from '../../../lib/brain-links';
import { LinkedList, PickDialog, type LinkRow } from './link-list';

type Form = LinkValues & { nlpEngine: number };

export const knowledgeHelp: TInfoPanelItem = {
  title: 'Knowledge Base',
  description:
    'Collections of your own text, web pages and files the avatar answers from. During a conversation it looks up the passages closest to what the visitor asked. Only your own collections can be linked.',
  possibleValues: [
    { name: 'Collection', type: 'knowledge', description: 'Made in Knowledge Base; linked here, saved with the avatar (customData.collection_ids).' },
    { name: 'Engines', type: 'condition', description: 'Large Language Model or Persona Studio Realtime.' },
  ],
  usefulness: 'An avatar that answers from your material stays accurate and on topic instead of guessing.',
};

/** Brain › Knowledge Base: linked collections and the 'Collection List' dialog (spec section 2). */
export function KnowledgeSubTab({ onHelp }: { onHelp?: (item: TInfoPanelItem) => void }) {
  const { control, setValue } = useFormContext<Form>();
  const engine = Number(useWatch({ control, name: 'nlpEngine' }));
  const linked = (useWatch({ control, name: 'collection_ids' }) as number[] | undefined) ?? [];
  const isEnabled = isKnowledgeEnabled(engine);
  const [isOpen, setOpen] = useState(false);
  const collections = useOwnCollections();
  const byId = new Map((collections.data ?? []).map((c) => [c.id, c]));
  const describe = (items: number) => `${items} item${items === 1 ? '' : 's'}`;
  const rows: LinkRow[] = linked.map((id) => {
    const c = byId.get(id);
    return c ? { id, name: c.name, secondary: describe(c.item_count) } : { id, name: `Collection #${id}`, secondary: collections.isSuccess ? 'Not found: it may have been deleted.' : undefined };
  });
  const offered = (collections.data ?? []).filter((c) => !linked.includes(c.id)).map((c) => ({ id: c.id, name: c.name, secondary: describe(c.item_count) }));
  const set = (next: number[]) => setValue('collection_ids', next, { shouldDirty: true });
  return (
    <Box sx={{ display: 'grid', gap: 2 }}>
      <LinkedList
        title="Knowledge Base collections"
        emptyText="No collections linked."
        rows={rows}
        isEnabled={isEnabled}
        disabledReason={LinkMessages.knowledgeDisabled}
        addLabel="Add collections"
        onAdd={() => setOpen(true)}
        onRemove={(id) => set(linked.filter((x) => x !== id))}
        onHelp={() => onHelp?.(knowledgeHelp)}
        footer={
          <Typography variant="body2" sx={{ mt: 1.5 }}>
            <TextLink to={paths.knowledgeBase}>Manage your Knowledge Base</TextLink>
          </Typography>
        }
      />
      <PickDialog
        open={isOpen}
        title="Collection List"
        rows={offered}
        isLoading={collections.isPending}
        error={collections.isError ? 'Failed to load your collections.' : undefined}
        emptyText={(collections.data ?? []).length === 0 ? 'You have no collections yet. Create one in Knowledge Base.' : 'All your collections are linked.'}
        onClose={() => setOpen(false)}
        onPick={(ids) => set([...linked, ...ids])}
      />
    </Box>
  );
}
