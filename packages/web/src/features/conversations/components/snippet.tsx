import Box from '@mui/material/Box';
import type { TSnippetPart } from '@persona/contract';

/** Text with the searched words marked (ADR 098): the parts the server cut, each rendered as text. */
export function Marked({ parts }: { parts: readonly TSnippetPart[] }) {
  return (
    <>
      {parts.map((p, i) =>
        p.hit ? (
          <Box component="mark" key={i} sx={{ bgcolor: 'rgba(250, 204, 21, 0.45)', color: 'inherit', borderRadius: 0.5, px: 0.25 }}>
            {p.text}
          </Box>
        ) : (
          <span key={i}>{p.text}</span>
        ),
      )}
    </>
  );
}
