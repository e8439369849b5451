import { PlaceholderPage } from '../../../components/placeholder-page';

export function VpsStatusRoute() {
  return (
    <PlaceholderPage
      title="VPS Status"
      description="The avatar servers connected to the portal and their state."
    />
  );
}
