import Box from '@mui/material/Box';
import Typography from '@mui/material/Typography';
import type { TFunction } from '@persona/contract';
import { formatDateTime } from '../../../lib/format-date';
import { ApprovalChip } from './approval-chip';

const PLACEHOLDER = 'Not yet';

/** A card's details: the three dates (a placeholder when missing) and the Approval Status chip. */
export function FunctionCardDetails({ fn }: { fn: TFunction }) {
  const rows: [string, string][] = [
    ['Create Date', formatDateTime(fn.createDate, PLACEHOLDER)],
    ['Last Update Date', formatDateTime(fn.lastUpdateDate, PLACEHOLDER)],
    ['Last Admin Update Date', formatDateTime(fn.lastAdminUpdateDate, PLACEHOLDER)],
  ];
  return (
    <Box>
      <Box component="dl" sx={{ m: 0, display: 'grid', gridTemplateColumns: 'auto 1fr', columnGap: 0.75, rowGap: 0.25 }}>
        {rows.map(([label, value]) => (
          <Box key={label} sx={{ display: 'contents' }}>
            <Typography component="dt" variant="caption" color="text.secondary" sx={{ whiteSpace: 'nowrap', fontSize: 11.5 }}>
              {label}:
            </Typography>
            <Typography component="dd" variant="caption" sx={{ m: 0, fontSize: 11.5, textAlign: 'right', color: value === PLACEHOLDER ? 'text.secondary' : 'text.primary', fontStyle: value === PLACEHOLDER ? 'italic' : undefined }}>
              {value}
            </Typography>
          </Box>
        ))}
      </Box>
      <Box sx={{ mt: 1, display: 'flex', alignItems: 'center', gap: 1 }}>
        <Typography variant="caption" color="text.secondary">
          Approval Status:
        </Typography>
        <ApprovalChip status={fn.approvalStatus} />
      </Box>
    </Box>
  );
}
