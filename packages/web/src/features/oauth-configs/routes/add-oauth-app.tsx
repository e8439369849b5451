import { PlaceholderPage } from '../../../components/placeholder-page';

export function AddOauthAppRoute() {
  return (
    <PlaceholderPage
      title="Create OAuth Config"
      description="Connect an identity service in two steps: OAuth Info, then OAuth Details."
    />
  );
}
