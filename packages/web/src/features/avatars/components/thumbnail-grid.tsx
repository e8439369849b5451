import type { ReactNode } from 'react';
import Box from '@mui/material/Box';
import ButtonBase from '@mui/material/ButtonBase';
import Typography from '@mui/material/Typography';
import CheckCircleIcon from '@mui/icons-material/CheckCircle';

export interface ThumbnailItem {
  id: string;
  name: string;
  thumbnail?: string;
  /** Shown instead of an image (video files, "none"). */
  icon?: ReactNode;
  badge?: ReactNode;
}

export interface ThumbnailGridProps {
  items: ThumbnailItem[];
  selectedId?: string | null;
  onSelect?: (id: string) => void;
  disabled?: boolean;
  /** Label of the group for assistive technology. */
  label: string;
  /** Extra tiles at the end (upload). */
  trailing?: ReactNode;
  aspectRatio?: string;
  minWidth?: number;
  /** Per-item action (delete), shown in the tile's corner. */
  renderAction?: (item: ThumbnailItem) => ReactNode;
}

/** A responsive grid of selectable thumbnails (appearances, backgrounds, scenes, lights). */
export function ThumbnailGrid({ items, selectedId, onSelect, disabled, label, trailing, aspectRatio = '3 / 4', minWidth = 120, renderAction }: ThumbnailGridProps) {
  return (
    <Box role="radiogroup" aria-label={label} sx={{ display: 'grid', gridTemplateColumns: `repeat(auto-fill, minmax(${minWidth}px, 1fr))`, gap: 1.5 }}>
      {items.map((item) => {
        const isSelected = item.id === selectedId;
        return (
          <Box key={item.id} sx={{ position: 'relative' }}>
            <ButtonBase
              role="radio"
              aria-checked={isSelected}
              aria-label={item.name}
              disabled={disabled}
              onClick={() => onSelect?.(item.id)}
              sx={{
                width: '100%',
                display: 'flex',
                flexDirection: 'column',
                alignItems: 'stretch',
                borderRadius: 2.5,
                overflow: 'hidden',
                border: 2,
                borderColor: isSelected ? 'primary.main' : 'divider',
                bgcolor: 'background.paper',
                boxShadow: isSelected ? '0 0 0 3px rgba(79, 70, 229, 0.18)' : 'none',
                transition: 'border-color 120ms, box-shadow 120ms, transform 120ms',
                opacity: disabled ? 0.55 : 1,
                '&:hover': disabled ? undefined : { borderColor: isSelected ? 'primary.main' : 'primary.light', transform: 'translateY(-1px)' },
                '&.Mui-focusVisible': { outline: '2px solid', outlineColor: 'primary.main', outlineOffset: 2 },
              }}
            >
              <Box sx={{ aspectRatio, bgcolor: 'grey.100', display: 'grid', placeItems: 'center', color: 'text.secondary', position: 'relative' }}>
                {item.thumbnail ? (
                  <Box component="img" src={item.thumbnail} alt="" loading="lazy" sx={{ width: '100%', height: '100%', objectFit: 'cover', display: 'block' }} />
                ) : (
                  item.icon
                )}
                {item.badge ? <Box sx={{ position: 'absolute', left: 6, top: 6 }}>{item.badge}</Box> : null}
                {isSelected ? (
                  <CheckCircleIcon sx={{ position: 'absolute', right: 6, top: 6, color: 'primary.main', bgcolor: '#fff', borderRadius: '50%' }} aria-hidden />
                ) : null}
              </Box>
              <Typography variant="body2" sx={{ px: 1, py: 0.75, fontWeight: 600, textAlign: 'left', whiteSpace: 'nowrap', overflow: 'hidden', textOverflow: 'ellipsis' }}>
                {item.name}
              </Typography>
            </ButtonBase>
            {renderAction ? <Box sx={{ position: 'absolute', right: 4, bottom: 30 }}>{renderAction(item)}</Box> : null}
          </Box>
        );
      })}
      {trailing}
    </Box>
  );
}

export interface AddTileProps {
  label: string;
  hint?: string;
  icon: ReactNode;
  onClick: () => void;
  disabled?: boolean;
  aspectRatio?: string;
}

/** The dashed "add / upload" tile at the end of a grid. */
export function AddTile({ label, hint, icon, onClick, disabled, aspectRatio = '3 / 4' }: AddTileProps) {
  return (
    <ButtonBase
      onClick={onClick}
      disabled={disabled}
      sx={{
        width: '100%',
        borderRadius: 2.5,
        border: '2px dashed',
        borderColor: 'divider',
        display: 'flex',
        flexDirection: 'column',
        gap: 0.75,
        p: 1.5,
        color: 'primary.main',
        minHeight: 0,
        aspectRatio: `auto`,
        '&:hover': { borderColor: 'primary.light', bgcolor: 'rgba(79, 70, 229, 0.04)' },
        opacity: disabled ? 0.5 : 1,
      }}
    >
      <Box sx={{ aspectRatio, width: '100%', display: 'grid', placeItems: 'center', '& svg': { fontSize: 34 } }}>
        <Box sx={{ display: 'flex', flexDirection: 'column', alignItems: 'center', gap: 0.75 }}>
          {icon}
          <Typography variant="body2" sx={{ fontWeight: 700 }}>
            {label}
          </Typography>
          {hint ? (
            <Typography variant="caption" color="text.secondary" sx={{ textAlign: 'center' }}>
              {hint}
            </Typography>
          ) : null}
        </Box>
      </Box>
    </ButtonBase>
  );
}
