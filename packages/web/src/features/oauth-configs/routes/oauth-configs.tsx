import { PlaceholderPage } from '../../../components/placeholder-page';

export function OauthConfigsRoute() {
  return (
    <PlaceholderPage
      title="OAuth Configs"
      description="Identity services your avatars can use to sign visitors in."
    />
  );
}
