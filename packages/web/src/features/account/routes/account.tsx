import { PlaceholderPage } from '../../../components/placeholder-page';

export function AccountRoute() {
  return (
    <PlaceholderPage
      title="Account"
      description="Your account details, subscription plan and billing report."
    />
  );
}
