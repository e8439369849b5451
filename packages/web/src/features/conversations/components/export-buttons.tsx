import Button from '@mui/material/Button';
import ButtonGroup from '@mui/material/ButtonGroup';
import FileDownloadOutlinedIcon from '@mui/icons-material/FileDownloadOutlined';
import { ConversationMessages, type TExportFormat } from '@persona/contract';
import { errorMessages } from '../../../lib/api-client';
import { showToast } from '../../../lib/toast';
import { useExportConversations } from '../api/export-conversations';
import type { ConversationFilters } from '../api/list-conversations';

/** Export as JSON / CSV: the list's current filters, or one conversation. */
export function ExportButtons({ filters, id }: { filters?: ConversationFilters; id?: string }) {
  const exporter = useExportConversations();
  const run = (format: TExportFormat) =>
    exporter.mutate(
      { format, filters, id },
      { onError: (error) => void showToast(`${ConversationMessages.exportFailed} ${errorMessages(error).join(' ')}`, 'error', { id: 'conversation-export' }) },
    );
  const label = id ? 'this conversation' : 'these conversations';
  return (
    <ButtonGroup variant="outlined" aria-label={`Export ${label}`} disabled={exporter.isPending}>
      <Button startIcon={<FileDownloadOutlinedIcon />} onClick={() => run('csv')} aria-label={`Export ${label} as CSV`}>
        Export CSV
      </Button>
      <Button onClick={() => run('json')} aria-label={`Export ${label} as JSON`}>
        JSON
      </Button>
    </ButtonGroup>
  );
}
