import Chip from '@mui/material/Chip';
import Tooltip from '@mui/material/Tooltip';
import CircularProgress from '@mui/material/CircularProgress';
import type { TKnowledgeItem } from '@persona/contract';

/** An item's ingestion state: Processing (spinning), Ready, or Failed with its reason. */
export function StatusChip({ item }: { item: Pick<TKnowledgeItem, 'status' | 'status_reason' | 'chunk_count'> }) {
  if (item.status === 'processing') {
    return <Chip size="small" variant="outlined" color="info" icon={<CircularProgress size={12} sx={{ ml: 0.75 }} />} label="Processing" />;
  }
  if (item.status === 'failed') {
    return (
      <Tooltip title={item.status_reason ?? 'Processing failed'}>
        <Chip size="small" color="error" variant="outlined" label="Failed" tabIndex={0} aria-description={item.status_reason ?? undefined} />
      </Tooltip>
    );
  }
  return <Chip size="small" color="success" variant="outlined" label={`Ready · ${item.chunk_count} ${item.chunk_count === 1 ? 'chunk' : 'chunks'}`} />;
}
