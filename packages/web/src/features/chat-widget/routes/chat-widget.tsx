import { PlaceholderPage } from '../../../components/placeholder-page';

export function ChatWidgetRoute() {
  return (
    <PlaceholderPage
      title="Chat Widget"
      description="The embedded chat widget."
    />
  );
}
