import Alert from '@mui/material/Alert';
import { PlatformServiceMessages } from '@persona/contract';
import { usePlatformServices } from '../../../api/get-platform-services';

/**
 * Says so when the avatar relies on one of the product's own services (Simple mode's language
 * model, the realtime without a key of its own) and this server does not run it: such an avatar
 * opens, but cannot answer. Nothing while the answer is unknown or the call failed.
 */
export function PlatformNotice({ service }: { service: 'llm' | 'realtime' }) {
  const platform = usePlatformServices();
  if (!platform.data || platform.data[service]) return null;
  return (
    <Alert severity="warning" sx={{ gridColumn: '1 / -1' }} data-testid={`platform-${service}-missing`}>
      {service === 'llm' ? PlatformServiceMessages.llmMissing : PlatformServiceMessages.realtimeMissing}
    </Alert>
  );
}
