import { Suspense, lazy } from 'react';
import Box from '@mui/material/Box';
import Skeleton from '@mui/material/Skeleton';

const PythonEditorImpl = lazy(() => import('./python-editor-impl'));

/** Height of one line of the editor, in px (13 px text). */
export const CODE_LINE_PX = 18;

export interface PythonEditorProps {
  value: string;
  onChange?: (value: string) => void;
  onFocus?: () => void;
  readOnly?: boolean;
  /** Accessible name of the editor. */
  label: string;
  /** Visible rows (the spec's code editor has 20). */
  rows?: number;
  hasError?: boolean;
}

/** A python code editor (CodeMirror with python highlighting), loaded on first use. */
export function PythonEditor(props: PythonEditorProps) {
  const height = (props.rows ?? 20) * CODE_LINE_PX + 8;
  return (
    <Box
      sx={{
        border: 1,
        borderColor: props.hasError ? 'error.main' : 'divider',
        borderRadius: 2,
        overflow: 'hidden',
        bgcolor: props.readOnly ? 'grey.50' : 'background.paper',
        '& .cm-editor': { fontSize: 13 },
        '& .cm-scroller': { lineHeight: `${CODE_LINE_PX}px`, fontFamily: 'ui-monospace, SFMono-Regular, Menlo, Consolas, monospace' },
        '& .cm-editor.cm-focused': { outline: 'none' },
        '&:focus-within': { borderColor: props.hasError ? 'error.main' : 'primary.main' },
      }}
    >
      <Suspense fallback={<Skeleton variant="rectangular" height={height} aria-label="Loading the code editor" />}>
        <PythonEditorImpl {...props} height={height} />
      </Suspense>
    </Box>
  );
}
