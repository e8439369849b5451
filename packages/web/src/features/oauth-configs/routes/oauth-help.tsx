import { PlaceholderPage } from '../../../components/placeholder-page';

export function OauthHelpRoute() {
  return (
    <PlaceholderPage
      title="OAuth Help"
      description="How to register the portal with an identity service and fill in the OAuth details."
    />
  );
}
