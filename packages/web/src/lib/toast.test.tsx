import { describe, expect, it } from 'vitest';
import { render, screen, waitFor } from '@testing-library/react';
import { ThemeProvider } from '@mui/material/styles';
import { ToasterHost } from '../app/toaster-host';
import { theme } from '../app/theme';
import { closeToast, showToast } from './toast';

describe('toasts', () => {
  it('a progress toast is replaced by its outcome, and an error does not stay beside the later success', async () => {
    render(<ToasterHost />);
    void showToast('Creating...', 'info', { id: 'save' });
    expect(await screen.findByText('Creating...')).toBeInTheDocument();
    void showToast('Error creating item', 'error', { id: 'save' });
    expect(await screen.findByText('Error creating item')).toBeInTheDocument();
    await waitFor(() => expect(screen.queryByText('Creating...')).not.toBeInTheDocument());
    void showToast('Interactive Avatar Created', 'success', { id: 'save' });
    expect(await screen.findByText('Interactive Avatar Created')).toBeInTheDocument();
    await waitFor(() => expect(screen.queryByText('Error creating item')).not.toBeInTheDocument());
    // Other toasts are left alone; closeToast removes the one under an id.
    void showToast('Copied', 'success');
    void closeToast('save');
    await waitFor(() => expect(screen.queryByText('Interactive Avatar Created')).not.toBeInTheDocument());
    expect(screen.getByText('Copied')).toBeInTheDocument();
  });

  it("uses the theme's AA colours, not notistack's green (3.3:1 with white)", async () => {
    render(
      <ThemeProvider theme={theme}>
        <ToasterHost />
      </ThemeProvider>,
    );
    void showToast('Updated Successfully', 'success');
    const toast = (await screen.findByText('Updated Successfully')).closest('.notistack-MuiContent-success')!;
    expect(getComputedStyle(toast).backgroundColor).toBe('rgb(21, 128, 61)');
  });
});
