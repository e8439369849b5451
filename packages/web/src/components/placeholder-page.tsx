import type { ReactNode } from 'react';
import Paper from '@mui/material/Paper';
import Typography from '@mui/material/Typography';
import { useDocumentTitle } from '../lib/use-document-title';
import { PageContainer } from './page-container';
import { PageHeader } from './page-header';

export interface PlaceholderPageProps {
  title: string;
  description?: ReactNode;
}

/** A titled page whose content arrives with a later feature. */
export function PlaceholderPage({ title, description }: PlaceholderPageProps) {
  useDocumentTitle(title);
  return (
    <PageContainer>
      <PageHeader title={title} description={description} />
      <Paper variant="outlined" sx={{ p: { xs: 3, sm: 5 }, textAlign: 'center', borderStyle: 'dashed' }}>
        <Typography color="text.secondary">This page is being built and will be available soon.</Typography>
      </Paper>
    </PageContainer>
  );
}
