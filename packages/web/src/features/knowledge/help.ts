import type { TInfoPanelItem } from '@persona/contract';

export type KnowledgeHelpKey = 'page' | 'collectionName' | 'items' | 'tryQuestion';

/** What the info panel says on the Knowledge Base page. */
export const knowledgeHelp: Record<KnowledgeHelpKey, TInfoPanelItem> = {
  page: {
    title: 'Knowledge Base',
    description:
      'Collections of text, web pages and files your avatars answer from. Link a collection to an avatar in the Avatar Creator (Brain › Knowledge Base); during a conversation the avatar looks up the passages closest to what the visitor asked.',
    possibleValues: [
      { name: 'Text', type: 'knowledge', description: 'Text you paste or type. Lines starting with # become headings.' },
      { name: 'Url', type: 'knowledge', description: 'Web pages, read once and reduced to their main text.' },
      { name: 'Crawl', type: 'knowledge', description: 'Pages of one site found from a start page (up to 20 at a time, 25 at most).' },
      { name: 'File', type: 'knowledge', description: 'PDF (25 MB), plain text (5 MB) or Word .docx (20 MB).' },
    ],
    usefulness: 'An avatar that answers from your own material stays accurate and on topic, instead of guessing.',
  },
  collectionName: {
    title: 'Collection Name',
    description: 'A name for the collection, shown here and in the Avatar Creator’s Collection List.',
    possibleValues: [{ name: 'Text', type: 'string', description: 'Required; at most 200 characters.' }],
    usefulness: 'Group knowledge by topic or audience (for example “Product manuals” or “Visitor FAQ”) so each avatar gets just what it needs.',
  },
  items: {
    title: 'Knowledge items',
    description:
      'Each item is processed in the background: fetched or read, cut into passages along its headings and paragraphs, and indexed for word and meaning search. Its status shows Processing, Ready (with the number of passages) or Failed with the reason.',
    possibleValues: [
      { name: 'Processing', type: 'status', description: 'Not searchable yet; nothing half-done is ever used.' },
      { name: 'Ready', type: 'status', description: 'Searchable by your avatars.' },
      { name: 'Failed', type: 'status', description: 'Could not be read (the reason says why). Retry once the problem is fixed.' },
    ],
    usefulness: 'Only ready items can answer questions: check the status after adding pages or files.',
  },
  tryQuestion: {
    title: 'Try a question',
    description: 'Runs the same search an avatar runs and lists the best passages with where they came from and their score.',
    possibleValues: [
      { name: 'Score', type: 'number', description: 'Higher is better. Word matches and meaning matches are combined (reciprocal rank fusion).' },
    ],
    usefulness: 'If the right passage does not come first, add clearer text or split long documents into topics.',
  },
};
