import { PlaceholderPage } from '../../../components/placeholder-page';

export function FunctionsRoute() {
  return (
    <PlaceholderPage
      title="Functions"
      description="Python functions your avatars can call during a conversation, after a moderator approves them."
    />
  );
}
