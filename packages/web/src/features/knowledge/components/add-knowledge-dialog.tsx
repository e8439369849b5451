import { useCallback, useState } from 'react';
import Box from '@mui/material/Box';
import Dialog from '@mui/material/Dialog';
import DialogContent from '@mui/material/DialogContent';
import DialogTitle from '@mui/material/DialogTitle';
import IconButton from '@mui/material/IconButton';
import Tab from '@mui/material/Tab';
import Tabs from '@mui/material/Tabs';
import useMediaQuery from '@mui/material/useMediaQuery';
import CloseIcon from '@mui/icons-material/Close';
import { KnowledgeLimits, Limits } from '@persona/contract';
import { CrawlTab } from './crawl-tab';
import { FileTab } from './file-tab';
import { TextTab } from './text-tab';
import { UrlTab } from './url-tab';

const TABS = ['Text', 'Url', 'Crawl', 'File'] as const;
type TabName = (typeof TABS)[number];

/** Add Knowledge (spec: a dialog of height 720 with the tabs Text, Url, Crawl and File). */
export function AddKnowledgeDialog({ open, collectionId, collectionName, onClose, onChanged }: { open: boolean; collectionId: number; collectionName: string; onClose: () => void; onChanged: () => void }) {
  const [tab, setTab] = useState<TabName>('Text');
  const [busy, setBusy] = useState(false);
  const fullScreen = useMediaQuery(`(max-width:${Limits.mobileBreakpointPx - 1}px)`);
  const onBusy = useCallback((value: boolean) => setBusy(value), []);
  const done = useCallback(() => {
    onChanged();
    onClose();
  }, [onChanged, onClose]);

  return (
    <Dialog
      open={open}
      onClose={busy ? undefined : onClose}
      fullScreen={fullScreen}
      maxWidth="md"
      fullWidth
      aria-labelledby="add-knowledge-title"
      slotProps={{ paper: { sx: fullScreen ? {} : { height: KnowledgeLimits.dialogHeightPx, maxHeight: 'calc(100% - 32px)' } } }}
    >
      <DialogTitle id="add-knowledge-title" sx={{ pr: 7, fontWeight: 700 }}>
        Add Knowledge
        <Box component="span" sx={{ display: 'block', fontSize: 14, fontWeight: 400, color: 'text.secondary' }}>
          to {collectionName}
        </Box>
        <IconButton aria-label="Close" onClick={onClose} disabled={busy} sx={{ position: 'absolute', right: 12, top: 12 }}>
          <CloseIcon />
        </IconButton>
      </DialogTitle>
      <Tabs value={tab} onChange={(_e, value: TabName) => setTab(value)} variant="fullWidth" sx={{ px: { xs: 1, sm: 3 }, borderBottom: 1, borderColor: 'divider' }}>
        {TABS.map((name) => (
          <Tab key={name} value={name} label={name} disabled={busy && tab !== name} />
        ))}
      </Tabs>
      <DialogContent sx={{ pt: '20px !important' }}>
        {open && tab === 'Text' ? <TextTab collectionId={collectionId} onDone={done} onBusy={onBusy} /> : null}
        {open && tab === 'Url' ? <UrlTab collectionId={collectionId} onSettled={onChanged} onBusy={onBusy} /> : null}
        {open && tab === 'Crawl' ? <CrawlTab collectionId={collectionId} onSettled={onChanged} onBusy={onBusy} /> : null}
        {open && tab === 'File' ? <FileTab collectionId={collectionId} onDone={done} onBusy={onBusy} /> : null}
      </DialogContent>
    </Dialog>
  );
}
