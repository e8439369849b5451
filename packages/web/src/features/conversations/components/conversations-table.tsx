import { Fragment } from 'react';
import { Link as RouterLink } from 'react-router';
import Checkbox from '@mui/material/Checkbox';
import Chip from '@mui/material/Chip';
import Link from '@mui/material/Link';
import Table from '@mui/material/Table';
import TableBody from '@mui/material/TableBody';
import TableCell from '@mui/material/TableCell';
import TableContainer from '@mui/material/TableContainer';
import TableHead from '@mui/material/TableHead';
import TableRow from '@mui/material/TableRow';
import Typography from '@mui/material/Typography';
import { ConversationLabels, type TConversationListItem, type TConversationSummary } from '@persona/contract';
import { paths } from '../../../lib/paths';
import { formatDuration, formatMs, formatStart, outcomeColor, outcomeLabel } from './format';
import { Marked } from './snippet';

const mono = { fontFamily: 'ui-monospace, SFMono-Regular, Menlo, monospace', fontSize: '0.8125rem' };
const fromSm = { display: { xs: 'none', sm: 'table-cell' } };
const fromMd = { display: { xs: 'none', md: 'table-cell' } };

/** Rows the owner may tick (ended ones: an open conversation cannot be deleted), for Delete selected (ADR 094). */
export interface RowSelection {
  selected: ReadonlySet<string>;
  onChange: (next: Set<string>) => void;
}

const isSelectable = (c: TConversationSummary) => c.endedAt !== null;

/**
 * One row per conversation; its start opens the transcript. With `selection`, a checkbox per ended row.
 * With `search`, the turn that matched under its row, and the transcript opens with the words marked.
 */
export function ConversationsTable({
  conversations,
  showAccount,
  selection,
  search,
}: {
  conversations: readonly TConversationListItem[];
  showAccount: boolean;
  selection?: RowSelection;
  search?: string;
}) {
  const columns = 8 + (selection ? 1 : 0);
  const selectable = conversations.filter(isSelectable);
  const ticked = selection ? selectable.filter((c) => selection.selected.has(c.id)).length : 0;
  const toggle = (id: string) => {
    if (!selection) return;
    const next = new Set(selection.selected);
    if (next.has(id)) next.delete(id);
    else next.add(id);
    selection.onChange(next);
  };
  return (
    <TableContainer sx={{ overflowX: 'auto' }}>
      <Table size="small" aria-label="Conversations" sx={{ '& th': { fontWeight: 700, whiteSpace: 'nowrap' }, '& td, & th': { py: 1.25 } }}>
        <TableHead>
          <TableRow>
            {selection ? (
              <TableCell padding="checkbox">
                <Checkbox
                  size="small"
                  checked={selectable.length > 0 && ticked === selectable.length}
                  indeterminate={ticked > 0 && ticked < selectable.length}
                  disabled={selectable.length === 0}
                  onChange={() => selection.onChange(ticked === selectable.length ? new Set() : new Set(selectable.map((c) => c.id)))}
                  slotProps={{ input: { 'aria-label': 'Select every ended conversation shown' } }}
                />
              </TableCell>
            ) : null}
            <TableCell>Started</TableCell>
            <TableCell sx={fromSm}>Avatar</TableCell>
            <TableCell align="right" sx={fromSm}>
              Duration
            </TableCell>
            <TableCell sx={fromMd}>Channel</TableCell>
            <TableCell sx={fromMd}>Visitor</TableCell>
            <TableCell align="right" sx={fromSm}>
              Turns
            </TableCell>
            <TableCell>Outcome</TableCell>
            <TableCell align="right" sx={fromSm}>
              Voice p50
            </TableCell>
          </TableRow>
        </TableHead>
        <TableBody>
          {conversations.map((c) => (
            <Fragment key={c.id}>
              <TableRow hover selected={selection?.selected.has(c.id) ?? false} sx={c.match ? { '& > td': { borderBottom: 0 } } : undefined}>
                {selection ? (
                  <TableCell padding="checkbox">
                    {isSelectable(c) ? (
                      <Checkbox size="small" checked={selection.selected.has(c.id)} onChange={() => toggle(c.id)} slotProps={{ input: { 'aria-label': `Select the conversation of ${formatStart(c.startedAt)} with ${c.avatarName}` } }} />
                    ) : null}
                  </TableCell>
                ) : null}
                <TableCell sx={{ whiteSpace: 'nowrap' }}>
                  <Link component={RouterLink} to={`${paths.conversations}/${c.id}${search ? `?q=${encodeURIComponent(search)}` : ''}`} sx={{ fontWeight: 600 }} aria-label={`Transcript of the conversation of ${formatStart(c.startedAt)} with ${c.avatarName}`}>
                    {formatStart(c.startedAt)}
                  </Link>
                  {/* Phones: the avatar and duration under the start (their columns are hidden). */}
                  <Typography component="span" variant="body2" color="text.secondary" sx={{ display: { xs: 'block', sm: 'none' }, whiteSpace: 'normal', overflowWrap: 'anywhere' }}>
                    {c.avatarName} · {formatDuration(c.durationSeconds)}
                  </Typography>
                </TableCell>
                <TableCell sx={{ ...fromSm, overflowWrap: 'anywhere', minWidth: 90 }}>
                  {c.avatarName}
                  {showAccount ? (
                    <Typography component="span" variant="body2" color="text.secondary" sx={{ display: 'block' }}>
                      Account {c.ownerUserId}
                    </Typography>
                  ) : null}
                </TableCell>
                <TableCell align="right" sx={{ ...fromSm, whiteSpace: 'nowrap', fontVariantNumeric: 'tabular-nums' }}>
                  {formatDuration(c.durationSeconds)}
                </TableCell>
                <TableCell sx={{ ...fromMd, overflowWrap: 'anywhere' }}>
                  {ConversationLabels.channel[c.channel]}
                  {c.hostOrigin ? (
                    <Typography component="span" variant="body2" color="text.secondary" sx={{ display: 'block' }}>
                      {c.hostOrigin}
                    </Typography>
                  ) : null}
                </TableCell>
                <TableCell sx={{ ...fromMd, ...mono }}>{c.clientIp ? `${c.visitor} · ${c.clientIp}` : c.visitor}</TableCell>
                <TableCell align="right" sx={{ ...fromSm, fontVariantNumeric: 'tabular-nums' }}>
                  {c.turns}
                </TableCell>
                <TableCell>
                  <Chip size="small" variant="outlined" color={outcomeColor[c.outcome]} label={outcomeLabel(c.outcome, c.endCode)} />
                </TableCell>
                <TableCell align="right" sx={{ ...fromSm, whiteSpace: 'nowrap', fontVariantNumeric: 'tabular-nums' }}>
                  {formatMs(c.voiceP50Ms)}
                </TableCell>
              </TableRow>
              {c.match ? (
                <TableRow selected={selection?.selected.has(c.id) ?? false}>
                  <TableCell colSpan={columns} sx={{ pt: 0, pl: selection ? 7.5 : 2 }}>
                    <Typography variant="body2" color="text.secondary" sx={{ overflowWrap: 'anywhere' }} aria-label={`What matched in the conversation of ${formatStart(c.startedAt)}`}>
                      <Typography component="span" variant="body2" sx={{ fontWeight: 600 }}>
                        {c.match.role === 'visitor' ? 'Visitor' : 'Avatar'}:
                      </Typography>{' '}
                      <Marked parts={c.match.snippet} />
                    </Typography>
                  </TableCell>
                </TableRow>
              ) : null}
            </Fragment>
          ))}
        </TableBody>
      </Table>
    </TableContainer>
  );
}
