import type { ReactNode } from 'react';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import Paper from '@mui/material/Paper';
import Typography from '@mui/material/Typography';
import CloseIcon from '@mui/icons-material/Close';
import SaveOutlinedIcon from '@mui/icons-material/SaveOutlined';

export interface EditorPanelProps {
  title: string;
  /** A chip or note beside the title. */
  badge?: ReactNode;
  children: ReactNode;
  /** Close: back to create mode. Absent in create mode. */
  onClose?: () => void;
  /** The form the Save button submits; absent when nothing can be saved. */
  formId?: string;
  saveLabel?: string;
  isSaving?: boolean;
  /** Extra buttons (Delete, Choose Another Template). */
  actions?: ReactNode;
}

/** The editor beside a side panel, with its Save and Close buttons. */
export function EditorPanel({ title, badge, children, onClose, formId, saveLabel = 'Save', isSaving = false, actions }: EditorPanelProps) {
  return (
    <Paper component="section" variant="outlined" aria-label={title} sx={{ p: { xs: 2, sm: 3 }, minWidth: 0 }}>
      <Box sx={{ display: 'flex', alignItems: 'center', gap: 1.5, flexWrap: 'wrap', mb: 2.5 }}>
        <Typography variant="h4" component="h2" sx={{ flex: '1 1 auto', minWidth: 0, overflowWrap: 'anywhere' }}>
          {title}
        </Typography>
        {badge}
      </Box>
      {children}
      {formId || onClose || actions ? (
        <Box sx={{ display: 'flex', gap: 1, flexWrap: 'wrap', justifyContent: 'flex-end', mt: 3 }}>
          {actions}
          <Box sx={{ flex: '1 1 auto' }} />
          {onClose ? (
            <Button color="inherit" startIcon={<CloseIcon />} onClick={onClose} disabled={isSaving}>
              Close
            </Button>
          ) : null}
          {formId ? (
            <Button type="submit" form={formId} variant="contained" startIcon={<SaveOutlinedIcon />} loading={isSaving}>
              {saveLabel}
            </Button>
          ) : null}
        </Box>
      ) : null}
    </Paper>
  );
}
