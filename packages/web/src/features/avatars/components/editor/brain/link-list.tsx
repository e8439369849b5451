import { useState, type ReactNode } from 'react';
import Alert from '@mui/material/Alert';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import Checkbox from '@mui/material/Checkbox';
import Dialog from '@mui/material/Dialog';
import DialogActions from '@mui/material/DialogActions';
import DialogContent from '@mui/material/DialogContent';
import DialogTitle from '@mui/material/DialogTitle';
import IconButton from '@mui/material/IconButton';
import List from '@mui/material/List';
import ListItem from '@mui/material/ListItem';
import ListItemButton from '@mui/material/ListItemButton';
import ListItemIcon from '@mui/material/ListItemIcon';
import ListItemText from '@mui/material/ListItemText';
import Paper from '@mui/material/Paper';
import Typography from '@mui/material/Typography';
import CloseIcon from '@mui/icons-material/Close';

export interface LinkRow {
  id: number;
  name: string;
  secondary?: string;
  badge?: ReactNode;
}

/** The linked items of a sub-tab, with Remove, and the button that opens the list dialog. */
export function LinkedList({
  title,
  emptyText,
  rows,
  isEnabled,
  disabledReason,
  addLabel,
  onAdd,
  onRemove,
  onHelp,
  footer,
}: {
  title: string;
  emptyText: string;
  rows: LinkRow[];
  isEnabled: boolean;
  disabledReason?: string;
  addLabel: string;
  onAdd: () => void;
  onRemove: (id: number) => void;
  onHelp?: () => void;
  footer?: ReactNode;
}) {
  return (
    <Paper variant="outlined" component="section" aria-label={title} sx={{ p: { xs: 2, md: 2.5 } }} onClick={onHelp} onFocus={onHelp}>
      <Box sx={{ display: 'flex', alignItems: 'center', gap: 1, flexWrap: 'wrap', mb: 1 }}>
        <Typography variant="h6" component="h3" sx={{ flex: 1 }}>
          {title}
        </Typography>
        <Button variant="contained" size="small" onClick={onAdd} disabled={!isEnabled}>
          {addLabel}
        </Button>
      </Box>
      {!isEnabled && disabledReason ? (
        <Alert severity="info" sx={{ mb: 1 }}>
          {disabledReason}
        </Alert>
      ) : null}
      {rows.length === 0 ? (
        <Typography variant="body2" color="text.secondary">
          {emptyText}
        </Typography>
      ) : (
        <List dense disablePadding aria-label={`Linked ${title.toLowerCase()}`}>
          {rows.map((row) => (
            <ListItem
              key={row.id}
              divider
              secondaryAction={
                <IconButton edge="end" aria-label={`Remove ${row.name}`} onClick={() => onRemove(row.id)} size="small">
                  <CloseIcon fontSize="small" />
                </IconButton>
              }
            >
              <ListItemText
                primary={
                  <Box component="span" sx={{ display: 'inline-flex', gap: 1, alignItems: 'center', flexWrap: 'wrap' }}>
                    {row.name}
                    {row.badge}
                  </Box>
                }
                secondary={row.secondary}
              />
            </ListItem>
          ))}
        </List>
      )}
      {footer}
    </Paper>
  );
}

/** 'Collection List' / 'Function List': pick items to link; linked ones are not offered again. */
export function PickDialog({
  open,
  title,
  rows,
  isLoading,
  error,
  emptyText,
  onClose,
  onPick,
}: {
  open: boolean;
  title: string;
  rows: LinkRow[];
  isLoading: boolean;
  error?: string;
  emptyText: ReactNode;
  onClose: () => void;
  onPick: (ids: number[]) => void;
}) {
  const [picked, setPicked] = useState<number[]>([]);
  const close = () => {
    setPicked([]);
    onClose();
  };
  const toggle = (id: number) => setPicked((p) => (p.includes(id) ? p.filter((x) => x !== id) : [...p, id]));
  return (
    <Dialog open={open} onClose={close} fullWidth maxWidth="sm" aria-labelledby="pick-dialog-title">
      <DialogTitle id="pick-dialog-title">{title}</DialogTitle>
      <DialogContent dividers>
        {isLoading ? (
          <Typography variant="body2">Loading...</Typography>
        ) : error ? (
          <Alert severity="error">{error}</Alert>
        ) : rows.length === 0 ? (
          <Typography variant="body2" color="text.secondary">
            {emptyText}
          </Typography>
        ) : (
          <List dense disablePadding>
            {rows.map((row) => (
              <ListItem key={row.id} disablePadding>
                <ListItemButton onClick={() => toggle(row.id)} dense>
                  <ListItemIcon sx={{ minWidth: 36 }}>
                    <Checkbox edge="start" checked={picked.includes(row.id)} tabIndex={-1} disableRipple slotProps={{ input: { 'aria-label': row.name } }} />
                  </ListItemIcon>
                  <ListItemText primary={row.name} secondary={row.secondary} />
                </ListItemButton>
              </ListItem>
            ))}
          </List>
        )}
      </DialogContent>
      <DialogActions>
        <Button onClick={close}>Cancel</Button>
        <Button
          variant="contained"
          disabled={picked.length === 0}
          onClick={() => {
            onPick(picked);
            close();
          }}
        >
          Link selected
        </Button>
      </DialogActions>
    </Dialog>
  );
}
