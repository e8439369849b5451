import Box from '@mui/material/Box';
import IconButton from '@mui/material/IconButton';
import Link from '@mui/material/Link';
import Table from '@mui/material/Table';
import TableBody from '@mui/material/TableBody';
import TableCell from '@mui/material/TableCell';
import TableContainer from '@mui/material/TableContainer';
import TableHead from '@mui/material/TableHead';
import TableRow from '@mui/material/TableRow';
import Tooltip from '@mui/material/Tooltip';
import Typography from '@mui/material/Typography';
import DeleteOutlineIcon from '@mui/icons-material/DeleteOutlineOutlined';
import ReplayIcon from '@mui/icons-material/Replay';
import type { TKnowledgeItem } from '@persona/contract';
import { formatDateTime } from '../../../lib/format-date';
import { StatusChip } from './status-chip';

/** A URL that wraps after its separators (/ ? & . -) instead of in the middle of a word. */
export function BreakableUrl({ url }: { url: string }) {
  const parts = url.split(/(?<=[/?&.=-])/);
  return (
    <>
      {parts.map((part, index) => (
        <span key={index}>
          {part}
          {index < parts.length - 1 ? <wbr /> : null}
        </span>
      ))}
    </>
  );
}

const TYPE_LABEL: Record<TKnowledgeItem['knowledge_type'], string> = { text: 'Text', url: 'Url', crawl: 'Crawl', file: 'File' };

/** The Collection Builder's table: Type, Name, Created At, Actions (and each item's status). */
export function KnowledgeTable({ items, onDelete, onRetry }: { items: TKnowledgeItem[]; onDelete: (item: TKnowledgeItem) => void; onRetry: (item: TKnowledgeItem) => void }) {
  return (
    <TableContainer sx={{ border: 1, borderColor: 'divider', borderRadius: 2 }}>
      <Table size="small" aria-label="Knowledge">
        <TableHead>
          <TableRow>
            <TableCell sx={{ fontWeight: 700, width: 64 }}>Type</TableCell>
            <TableCell sx={{ fontWeight: 700, width: '100%' }}>Name</TableCell>
            <TableCell sx={{ fontWeight: 700, display: { xs: 'none', md: 'table-cell' }, whiteSpace: 'nowrap' }}>Created At</TableCell>
            <TableCell sx={{ fontWeight: 700, width: 96 }} align="right">
              Actions
            </TableCell>
          </TableRow>
        </TableHead>
        <TableBody>
          {items.map((item) => (
            <TableRow key={item.id} hover>
              <TableCell>{TYPE_LABEL[item.knowledge_type]}</TableCell>
              <TableCell sx={{ minWidth: 0 }}>
                <Typography variant="body2" sx={{ fontWeight: 600, overflowWrap: 'break-word' }}>
                  {item.name}
                </Typography>
                {item.url && item.knowledge_type !== 'file' ? (
                  <Link href={item.url} target="_blank" rel="noopener noreferrer" variant="caption" sx={{ overflowWrap: 'break-word', display: 'block' }}>
                    <BreakableUrl url={item.url} />
                  </Link>
                ) : item.file_name && item.file_url ? (
                  // A signed link that works for a few minutes: the stored file is private.
                  <Link href={item.file_url} target="_blank" rel="noopener noreferrer" variant="caption" sx={{ overflowWrap: 'anywhere', display: 'block' }}>
                    {item.file_name}
                  </Link>
                ) : item.file_name ? (
                  <Typography variant="caption" color="text.secondary" sx={{ display: 'block', overflowWrap: 'anywhere' }}>
                    {item.file_name}
                  </Typography>
                ) : null}
                <Box sx={{ mt: 0.5, display: 'flex', gap: 1, alignItems: 'center', flexWrap: 'wrap' }}>
                  <StatusChip item={item} />
                  {item.status === 'failed' && item.status_reason ? (
                    <Typography variant="caption" color="error.main" sx={{ overflowWrap: 'anywhere' }}>
                      {item.status_reason}
                    </Typography>
                  ) : null}
                </Box>
              </TableCell>
              <TableCell sx={{ display: { xs: 'none', md: 'table-cell' }, whiteSpace: 'nowrap' }}>{formatDateTime(item.created_at)}</TableCell>
              <TableCell align="right" sx={{ whiteSpace: 'nowrap' }}>
                {item.status === 'failed' ? (
                  <Tooltip title="Retry">
                    <IconButton size="small" aria-label={`Retry ${item.name}`} onClick={() => onRetry(item)}>
                      <ReplayIcon fontSize="small" />
                    </IconButton>
                  </Tooltip>
                ) : null}
                <Tooltip title="Delete">
                  <IconButton size="small" color="error" aria-label={`Delete ${item.name}`} onClick={() => onDelete(item)}>
                    <DeleteOutlineIcon fontSize="small" />
                  </IconButton>
                </Tooltip>
              </TableCell>
            </TableRow>
          ))}
        </TableBody>
      </Table>
    </TableContainer>
  );
}
