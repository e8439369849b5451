import { Suspense, lazy } from 'react';
import Box from '@mui/material/Box';
import Skeleton from '@mui/material/Skeleton';

const CodeEditor = lazy(() => import('./json-editor-impl'));

export interface JsonEditorProps {
  value: string;
  onChange?: (value: string) => void;
  readOnly?: boolean;
  /** Accessible name of the editor. */
  label: string;
  minHeight?: number;
  hasError?: boolean;
}

/** A JSON code editor (CodeMirror, loaded on first use). */
export function JsonEditor(props: JsonEditorProps) {
  return (
    <Box
      sx={{
        border: 1,
        borderColor: props.hasError ? 'error.main' : 'divider',
        borderRadius: 2,
        overflow: 'hidden',
        bgcolor: props.readOnly ? 'grey.50' : 'background.paper',
        '& .cm-editor': { fontSize: 13 },
        '& .cm-editor.cm-focused': { outline: 'none' },
        // Focus shows on the box (CodeMirror's own outline is turned off above).
        '&:focus-within': { borderColor: props.hasError ? 'error.main' : 'primary.main' },
      }}
    >
      <Suspense fallback={<Skeleton variant="rectangular" height={props.minHeight ?? 320} />}>
        <CodeEditor {...props} />
      </Suspense>
    </Box>
  );
}
