import { useEffect, useState } from 'react';
import Box from '@mui/material/Box';
import InputAdornment from '@mui/material/InputAdornment';
import SearchIcon from '@mui/icons-material/Search';
import Button from '@mui/material/Button';
import FormControlLabel from '@mui/material/FormControlLabel';
import MenuItem from '@mui/material/MenuItem';
import Switch from '@mui/material/Switch';
import TextField from '@mui/material/TextField';
import { ConversationLabels, ConversationLimits, ConversationMessages, ZConversationOutcome } from '@persona/contract';
import type { ConversationFilters } from '../api/list-conversations';
import type { TAvatarName } from '../api/list-avatar-names';

/** A day of the date inputs (yyyy-mm-dd, the visitor's local day) ⇄ the instant the API takes. */
export const dayStart = (day: string) => new Date(`${day}T00:00:00`).toISOString();
export const dayEnd = (day: string) => new Date(`${day}T23:59:59.999`).toISOString();
const dayOf = (iso: string | undefined) => {
  if (!iso) return '';
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? '' : `${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, '0')}-${String(d.getDate()).padStart(2, '0')}`;
};

/** The range the inputs hold is one the API takes; the message otherwise. */
export function rangeError(filters: ConversationFilters): string | null {
  if (!filters.from || !filters.to) return null;
  const span = Date.parse(filters.to) - Date.parse(filters.from);
  if (span < 0) return ConversationMessages.badRange;
  if (span > ConversationLimits.rangeMaxDays * 86_400_000) return ConversationMessages.rangeTooLong;
  return null;
}

export function ConversationFiltersBar({ filters, avatars, onChange }: { filters: ConversationFilters; avatars: readonly TAvatarName[]; onChange: (next: ConversationFilters) => void }) {
  const set = (patch: Partial<ConversationFilters>) => onChange({ ...filters, ...patch });
  const error = rangeError(filters);
  const isFiltered = Object.values(filters).some((v) => v !== undefined && v !== '');
  // The search words are typed here and put in the URL on Enter (or at once when cleared).
  const [words, setWords] = useState(filters.q ?? '');
  useEffect(() => setWords(filters.q ?? ''), [filters.q]);
  const search = (text: string) => set({ q: text.trim() ? text.trim() : undefined });
  return (
    <Box
      component="form"
      role="search"
      aria-label="Filter conversations"
      onSubmit={(e) => {
        e.preventDefault();
        search(words);
      }}
      sx={{ display: 'grid', gap: 1.5, gridTemplateColumns: { xs: '1fr 1fr', md: 'minmax(160px, 1.4fr) repeat(3, minmax(130px, 1fr)) auto' }, alignItems: 'center', p: 2 }}
    >
      <TextField
        size="small"
        type="search"
        label="Search what was said"
        placeholder="Words the visitor or the avatar said, then Enter"
        value={words}
        onChange={(e) => {
          setWords(e.target.value);
          if (e.target.value === '' && filters.q) search('');
        }}
        onKeyDown={(e) => {
          // Enter searches (the form holds several fields: the browser would not submit it alone).
          if (e.key === 'Enter') {
            e.preventDefault();
            search(words);
          }
        }}
        onBlur={() => {
          if (words.trim() !== (filters.q ?? '')) search(words);
        }}
        sx={{ gridColumn: '1 / -1' }}
        slotProps={{
          htmlInput: { maxLength: ConversationLimits.searchMaxChars, enterKeyHint: 'search' },
          input: {
            startAdornment: (
              <InputAdornment position="start">
                <SearchIcon fontSize="small" />
              </InputAdornment>
            ),
          },
        }}
      />
      <TextField
        select
        size="small"
        label="Avatar"
        value={filters.avatarId ?? ''}
        onChange={(e) => set({ avatarId: e.target.value || undefined })}
        sx={{ gridColumn: { xs: '1 / -1', md: 'auto' } }}
      >
        <MenuItem value="">All avatars</MenuItem>
        {avatars.map((a) => (
          <MenuItem key={a.id} value={String(a.id)}>
            {a.name}
          </MenuItem>
        ))}
        {filters.avatarId && !avatars.some((a) => String(a.id) === filters.avatarId) ? <MenuItem value={filters.avatarId}>Avatar {filters.avatarId}</MenuItem> : null}
      </TextField>
      <TextField
        size="small"
        type="date"
        label="From"
        value={dayOf(filters.from)}
        onChange={(e) => set({ from: e.target.value ? dayStart(e.target.value) : undefined })}
        error={error !== null}
        slotProps={{ inputLabel: { shrink: true } }}
      />
      <TextField
        size="small"
        type="date"
        label="To"
        value={dayOf(filters.to)}
        onChange={(e) => set({ to: e.target.value ? dayEnd(e.target.value) : undefined })}
        error={error !== null}
        helperText={error ?? undefined}
        slotProps={{ inputLabel: { shrink: true } }}
      />
      <TextField
        select
        size="small"
        label="Outcome"
        value={filters.outcome ?? ''}
        onChange={(e) => set({ outcome: e.target.value || undefined })}
        sx={{ gridColumn: { xs: '1 / -1', md: 'auto' } }}
      >
        <MenuItem value="">Any outcome</MenuItem>
        {ZConversationOutcome.options.map((o) => (
          <MenuItem key={o} value={o}>
            {ConversationLabels.outcome[o]}
          </MenuItem>
        ))}
      </TextField>
      <Box sx={{ gridColumn: { xs: '1 / -1', md: 'auto' }, display: 'flex', alignItems: 'center', justifyContent: 'space-between', gap: 1 }}>
        <FormControlLabel
          control={<Switch checked={filters.hasErrors === 'true'} onChange={(e) => set({ hasErrors: e.target.checked ? 'true' : undefined })} />}
          label="Errors only"
          sx={{ m: 0, whiteSpace: 'nowrap' }}
        />
        <Button color="inherit" onClick={() => onChange({})} disabled={!isFiltered}>
          Clear
        </Button>
      </Box>
    </Box>
  );
}
