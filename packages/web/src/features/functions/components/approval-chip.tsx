import Chip from '@mui/material/Chip';
import CheckCircleIcon from '@mui/icons-material/CheckCircle';
import HourglassEmptyIcon from '@mui/icons-material/HourglassEmpty';
import BlockIcon from '@mui/icons-material/Block';
import { ApprovalStatus, approvalStatusName } from '@persona/contract';

/** The Approval Status chip: Pending until a moderator decides; Approved is highlighted. */
export function ApprovalChip({ status, size = 'small' }: { status: number; size?: 'small' | 'medium' }) {
  const label = approvalStatusName(status);
  if (status === ApprovalStatus.Approved) {
    return <Chip size={size} color="success" icon={<CheckCircleIcon />} label={label} sx={{ fontWeight: 700 }} />;
  }
  if (status === ApprovalStatus.Rejected) {
    return <Chip size={size} color="error" variant="outlined" icon={<BlockIcon />} label={label} />;
  }
  return <Chip size={size} color="warning" variant="outlined" icon={<HourglassEmptyIcon />} label={label} />;
}
