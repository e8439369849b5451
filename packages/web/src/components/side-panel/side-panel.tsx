import type { ReactNode } from 'react';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import Card from '@mui/material/Card';
import CardActions from '@mui/material/CardActions';
import CardContent from '@mui/material/CardContent';
import Paper from '@mui/material/Paper';
import Skeleton from '@mui/material/Skeleton';
import Typography from '@mui/material/Typography';
import AddIcon from '@mui/icons-material/Add';
import DeleteOutlineIcon from '@mui/icons-material/DeleteOutlineOutlined';
import EditOutlinedIcon from '@mui/icons-material/EditOutlined';
import VisibilityOutlinedIcon from '@mui/icons-material/VisibilityOutlined';
import { LoadFailure } from './load-failure';

export type SidePanelKey = string | number;

export interface SidePanelProps<T> {
  /** The panel's heading, e.g. 'Functions'. */
  title: string;
  items: readonly T[] | undefined;
  isLoading: boolean;
  /** The load failure, if the list could not be loaded. */
  error: unknown;
  /** Used in the load failure text: "We couldn't load the {name}." */
  itemsName: string;
  onRetry: () => void;
  getKey: (item: T) => SidePanelKey;
  getTitle: (item: T) => string;
  /** The card's body under its title (dates, chips). */
  renderDetails?: (item: T) => ReactNode;
  /** The card in edit mode; null is create mode. */
  selectedKey: SidePanelKey | null;
  onEdit: (item: T) => void;
  /** 'Edit' by default; 'View' for items that cannot be changed. */
  editLabel?: 'Edit' | 'View';
  onDelete?: (item: T) => void;
  /** Cards for which this is false have no Delete button. */
  canDelete?: (item: T) => boolean;
  onCreate: () => void;
  createLabel: string;
  emptyText: string;
}

/**
 * The generic side panel (spec "Generic side panels"): a card list with Edit and Delete, the
 * selected card highlighted, and a create button that returns to create mode.
 */
export function SidePanel<T>(props: SidePanelProps<T>) {
  const { items, selectedKey, editLabel = 'Edit' } = props;
  const headingId = `side-panel-${props.itemsName.replace(/\s+/g, '-')}`;
  return (
    <Paper component="nav" variant="outlined" aria-labelledby={headingId} sx={{ p: 2, display: 'flex', flexDirection: 'column', gap: 1.5, minWidth: 0 }}>
      <Box sx={{ display: 'flex', alignItems: 'center', justifyContent: 'space-between', gap: 1 }}>
        <Typography id={headingId} variant="h5" component="h1">
          {props.title}
        </Typography>
        <Button size="small" variant={selectedKey === null ? 'outlined' : 'contained'} startIcon={<AddIcon />} onClick={props.onCreate}>
          {props.createLabel}
        </Button>
      </Box>
      {props.isLoading ? (
        <Box aria-busy="true" aria-label={`Loading ${props.itemsName}`} sx={{ display: 'grid', gap: 1.5 }}>
          {[0, 1, 2].map((i) => (
            <Skeleton key={i} variant="rounded" height={96} />
          ))}
        </Box>
      ) : props.error ? (
        <LoadFailure name={props.itemsName} error={props.error} onRetry={props.onRetry} />
      ) : !items || items.length === 0 ? (
        <Typography color="text.secondary" sx={{ py: 3, textAlign: 'center' }}>
          {props.emptyText}
        </Typography>
      ) : (
        <Box component="ul" sx={{ listStyle: 'none', p: 0, m: 0, display: 'grid', gap: 1.5 }}>
          {items.map((item) => {
            const key = props.getKey(item);
            const isSelected = key === selectedKey;
            const title = props.getTitle(item);
            return (
              <li key={key}>
                <Card
                  variant="outlined"
                  aria-current={isSelected ? 'true' : undefined}
                  data-selected={isSelected ? 'true' : undefined}
                  sx={{
                    borderColor: isSelected ? 'primary.main' : 'divider',
                    borderWidth: isSelected ? 2 : 1,
                    bgcolor: isSelected ? 'rgba(79, 70, 229, 0.06)' : 'background.paper',
                    transition: 'border-color 120ms, background-color 120ms',
                  }}
                >
                  {/* A click on the card's body selects it, like its Edit button (the keyboard's way). */}
                  <CardContent
                    onClick={(event) => {
                      if (isSelected || (event.target as HTMLElement).closest('button, a, input')) return;
                      props.onEdit(item);
                    }}
                    data-testid="side-panel-card-body"
                    sx={{ pb: 0.5, px: 1.75, cursor: isSelected ? 'default' : 'pointer' }}
                  >
                    <Typography sx={{ fontWeight: 700, overflowWrap: 'anywhere' }} component="h3">
                      {title}
                    </Typography>
                    {props.renderDetails ? <Box sx={{ mt: 0.75 }}>{props.renderDetails(item)}</Box> : null}
                  </CardContent>
                  <CardActions sx={{ px: 1.25, pb: 1.25, pt: 0.5 }}>
                    <Button
                      size="small"
                      startIcon={editLabel === 'Edit' ? <EditOutlinedIcon /> : <VisibilityOutlinedIcon />}
                      onClick={() => props.onEdit(item)}
                      aria-label={`${editLabel} ${title}`}
                      disabled={isSelected}
                    >
                      {editLabel}
                    </Button>
                    {props.onDelete && (props.canDelete?.(item) ?? true) ? (
                      <Button size="small" color="error" startIcon={<DeleteOutlineIcon />} onClick={() => props.onDelete?.(item)} aria-label={`Delete ${title}`}>
                        Delete
                      </Button>
                    ) : null}
                  </CardActions>
                </Card>
              </li>
            );
          })}
        </Box>
      )}
    </Paper>
  );
}
