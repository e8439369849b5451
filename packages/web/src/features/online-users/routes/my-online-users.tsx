import { PlaceholderPage } from '../../../components/placeholder-page';

export function MyOnlineUsersRoute() {
  return (
    <PlaceholderPage
      title="My Online Users"
      description="Visitors currently talking to your avatars."
    />
  );
}
