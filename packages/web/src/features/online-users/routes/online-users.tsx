import { PlaceholderPage } from '../../../components/placeholder-page';

export function OnlineUsersRoute() {
  return (
    <PlaceholderPage
      title="Online Users"
      description="Who is talking to an avatar right now."
    />
  );
}
