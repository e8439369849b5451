import { PlaceholderPage } from '../../../components/placeholder-page';

export function AvatarsRoute() {
  return (
    <PlaceholderPage
      title="Avatar Creator"
      description="Create and configure your conversational avatars: appearance, environment, brain, voice and how they are embedded."
    />
  );
}
