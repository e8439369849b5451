import Chip from '@mui/material/Chip';
import type { TVpsStatus } from '@persona/contract';

/** AVAILABLE is green, anything else red (spec section 2, VPS Status). */
export function VpsStatusChip({ status }: { status: TVpsStatus }) {
  const isAvailable = status === 'AVAILABLE';
  return (
    <Chip
      size="small"
      label={status}
      color={isAvailable ? 'success' : 'error'}
      data-status={status}
      sx={{ fontWeight: 700, letterSpacing: '0.03em', minWidth: 96 }}
    />
  );
}
