import Box from '@mui/material/Box';
import Chip from '@mui/material/Chip';
import Divider from '@mui/material/Divider';
import Paper from '@mui/material/Paper';
import Typography from '@mui/material/Typography';
import InfoOutlinedIcon from '@mui/icons-material/InfoOutlined';
import LightbulbOutlinedIcon from '@mui/icons-material/LightbulbOutlined';
import type { TInfoPanelItem } from '@persona/contract';

export interface InfoPanelProps {
  /** The help of the field in focus (or the page's own help). */
  item: TInfoPanelItem | null;
}

/**
 * The right-hand info panel: title, description, possible values and 'Why is this important?'
 * for the field the user is working on.
 */
export function InfoPanel({ item }: InfoPanelProps) {
  return (
    <Paper component="aside" variant="outlined" aria-label="Field help" aria-live="polite" sx={{ p: 2.5 }}>
      {item ? (
        <>
          <Box sx={{ display: 'flex', alignItems: 'center', gap: 1, mb: 1 }}>
            <InfoOutlinedIcon color="primary" fontSize="small" aria-hidden />
            <Typography variant="h6" component="h2">
              {item.title}
            </Typography>
          </Box>
          <Typography variant="body2" color="text.secondary" sx={{ lineHeight: 1.7, whiteSpace: 'pre-line' }}>
            {item.description}
          </Typography>
          {item.possibleValues.length > 0 ? (
            <>
              <Divider sx={{ my: 2 }} />
              <Typography variant="overline" color="text.secondary" component="h3" sx={{ fontWeight: 700 }}>
                Possible values
              </Typography>
              <Box component="dl" sx={{ m: 0, display: 'grid', gap: 1.25 }}>
                {item.possibleValues.map((value) => (
                  <Box key={value.name}>
                    <Box component="dt" sx={{ display: 'flex', alignItems: 'center', gap: 1, flexWrap: 'wrap' }}>
                      <Typography component="span" variant="body2" sx={{ fontWeight: 700 }}>
                        {value.name}
                      </Typography>
                      <Chip label={value.type} size="small" variant="outlined" sx={{ height: 20, fontSize: 11 }} />
                    </Box>
                    <Typography component="dd" variant="body2" color="text.secondary" sx={{ m: 0, lineHeight: 1.6 }}>
                      {value.description}
                      {value.condition ? (
                        <Box component="span" sx={{ display: 'block', fontStyle: 'italic' }}>
                          {value.condition}
                        </Box>
                      ) : null}
                    </Typography>
                  </Box>
                ))}
              </Box>
            </>
          ) : null}
          <Divider sx={{ my: 2 }} />
          <Box sx={{ display: 'flex', alignItems: 'center', gap: 1, mb: 0.75 }}>
            <LightbulbOutlinedIcon sx={{ color: 'warning.main' }} fontSize="small" aria-hidden />
            <Typography variant="subtitle2" component="h3" sx={{ fontWeight: 700 }}>
              Why is this important?
            </Typography>
          </Box>
          <Typography variant="body2" color="text.secondary" sx={{ lineHeight: 1.7 }}>
            {item.usefulness}
          </Typography>
        </>
      ) : (
        <Typography variant="body2" color="text.secondary">
          Select a field to see what it is for.
        </Typography>
      )}
    </Paper>
  );
}
