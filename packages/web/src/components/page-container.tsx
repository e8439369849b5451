import type { ReactNode } from 'react';
import Container from '@mui/material/Container';

/** The content column of a signed-in page. */
export function PageContainer({ children, maxWidth = 'lg' }: { children: ReactNode; maxWidth?: 'md' | 'lg' | 'xl' }) {
  return (
    <Container maxWidth={maxWidth} sx={{ py: { xs: 3, sm: 4 }, flex: 1 }}>
      {children}
    </Container>
  );
}
