import { PlaceholderPage } from '../../../components/placeholder-page';

export function KnowledgeBaseRoute() {
  return (
    <PlaceholderPage
      title="Knowledge Base"
      description="Collections of text, web pages and files your avatars can draw answers from."
    />
  );
}
