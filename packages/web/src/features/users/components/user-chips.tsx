import Chip from '@mui/material/Chip';
import type { TAdminUser } from '@persona/contract';

const statusColor = { ACTIVE: 'success', DISABLED: 'error', UNVERIFIED: 'warning' } as const;

export function UserStatusChip({ status }: { status: TAdminUser['status'] }) {
  return <Chip size="small" label={status} color={statusColor[status]} variant={status === 'ACTIVE' ? 'filled' : 'outlined'} sx={{ fontWeight: 700 }} />;
}

export function UserTypeChip({ userType }: { userType: TAdminUser['userType'] }) {
  return <Chip size="small" label={userType} color={userType === 'ADMIN' ? 'primary' : 'default'} variant="outlined" />;
}
