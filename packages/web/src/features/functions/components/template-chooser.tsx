import { useState } from 'react';
import Alert from '@mui/material/Alert';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import Card from '@mui/material/Card';
import CardActionArea from '@mui/material/CardActionArea';
import CardContent from '@mui/material/CardContent';
import Skeleton from '@mui/material/Skeleton';
import Typography from '@mui/material/Typography';
import ArrowForwardIcon from '@mui/icons-material/ArrowForward';
import CheckCircleIcon from '@mui/icons-material/CheckCircle';
import { FunctionMessages, type TFunctionTemplate } from '@persona/contract';
import { LoadFailure } from '../../../components/side-panel';
import { useFunctionTemplates } from '../api/list-function-templates';

export interface TemplateChooserProps {
  initialId?: string | null;
  onChoose: (template: TFunctionTemplate) => void;
  onFocusHelp?: () => void;
}

/** Step one of a new function: pick a template, then continue to File Name and Code. */
export function TemplateChooser({ initialId = null, onChoose, onFocusHelp }: TemplateChooserProps) {
  const templates = useFunctionTemplates();
  const [chosenId, setChosenId] = useState<string | null>(initialId);
  const [hasTried, setHasTried] = useState(false);

  if (templates.isPending) return <Skeleton variant="rounded" height={240} aria-label="Loading templates" />;
  if (templates.isError) return <LoadFailure name="function templates" error={templates.error} onRetry={() => void templates.refetch()} />;

  const proceed = () => {
    const template = templates.data.find((t) => t.id === chosenId);
    if (!template) {
      setHasTried(true);
      return;
    }
    onChoose(template);
  };

  return (
    <Box>
      <Typography color="text.secondary" sx={{ mb: 2 }}>
        Choose a template to start from.
      </Typography>
      <Box role="radiogroup" aria-label="Function template" sx={{ display: 'grid', gap: 1.5, gridTemplateColumns: { xs: '1fr', sm: '1fr 1fr' } }}>
        {templates.data.map((template) => {
          const isChosen = template.id === chosenId;
          return (
            <Card
              key={template.id}
              variant="outlined"
              sx={{ borderColor: isChosen ? 'primary.main' : 'divider', borderWidth: isChosen ? 2 : 1, bgcolor: isChosen ? 'rgba(79, 70, 229, 0.06)' : undefined }}
            >
              <CardActionArea
                role="radio"
                aria-checked={isChosen}
                onClick={() => {
                  setChosenId(template.id);
                  setHasTried(false);
                  onFocusHelp?.();
                }}
                onDoubleClick={() => onChoose(template)}
                // Content from the top, whatever the card's height: every title on the same line.
                sx={{ height: '100%', display: 'flex', flexDirection: 'column', alignItems: 'stretch', justifyContent: 'flex-start' }}
              >
                <CardContent sx={{ width: '100%' }}>
                  <Box sx={{ display: 'flex', alignItems: 'center', gap: 1, mb: 0.5, minHeight: 24 }}>
                    <Typography sx={{ fontWeight: 700, flex: 1 }}>{template.title}</Typography>
                    {isChosen ? <CheckCircleIcon color="primary" fontSize="small" aria-hidden /> : null}
                  </Box>
                  <Typography variant="body2" color="text.secondary">
                    {template.description}
                  </Typography>
                </CardContent>
              </CardActionArea>
            </Card>
          );
        })}
      </Box>
      {hasTried ? (
        <Alert severity="error" sx={{ mt: 2 }}>
          {FunctionMessages.templateRequired}
        </Alert>
      ) : null}
      <Box sx={{ display: 'flex', justifyContent: 'flex-end', mt: 2.5 }}>
        <Button variant="contained" endIcon={<ArrowForwardIcon />} onClick={proceed}>
          Use Template
        </Button>
      </Box>
    </Box>
  );
}
