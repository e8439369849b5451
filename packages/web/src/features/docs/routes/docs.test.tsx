import { describe, expect, it } from 'vitest';
import { screen, within } from '@testing-library/react';
import { renderApp } from '../../../test/render-app';

describe('/docs', () => {
  it('links the OAuth configs page (in no menu) and its help from a section of its own', async () => {
    renderApp({ route: '/docs' });
    const section = await screen.findByRole('region', { name: 'Visitor sign-in (OAuth)' });
    expect(within(section).getByRole('link', { name: 'OAuth configs' })).toHaveAttribute('href', '/oauthconfigs');
    expect(within(section).getByRole('link', { name: 'OAuth help' })).toHaveAttribute('href', '/oauthhelp');
    expect(screen.getByRole('link', { name: 'Visitor sign-in (OAuth)' })).toHaveAttribute('href', '#oauth');
  });
});
