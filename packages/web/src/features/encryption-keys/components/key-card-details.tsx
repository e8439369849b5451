import Box from '@mui/material/Box';
import Chip from '@mui/material/Chip';
import Typography from '@mui/material/Typography';
import type { TEncryptionKey } from '@persona/contract';
import { formatDateTime } from '../../../lib/format-date';

export function KeyCardDetails({ encKey }: { encKey: TEncryptionKey }) {
  return (
    <Box sx={{ display: 'flex', alignItems: 'center', gap: 1, flexWrap: 'wrap' }}>
      <Typography variant="caption" color="text.secondary">
        Created: {formatDateTime(encKey.created)}
      </Typography>
      {encKey.defaultKey ? <Chip size="small" color="primary" label="Default" /> : null}
    </Box>
  );
}
