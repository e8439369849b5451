import { PlaceholderPage } from '../../../components/placeholder-page';

export function EncryptionKeysRoute() {
  return (
    <PlaceholderPage
      title="Encryption Keys"
      description="Keys that protect the data your avatars exchange with your own systems."
    />
  );
}
