import { PlaceholderPage } from '../../../components/placeholder-page';

export function AddAvatarRoute() {
  return (
    <PlaceholderPage
      title="Add Avatar"
      description="Create a new avatar step by step."
    />
  );
}
