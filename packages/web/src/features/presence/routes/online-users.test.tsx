import { describe, expect, it } from 'vitest';
import { screen } from '@testing-library/react';
import { AdminMessages } from '@persona/contract';
import { json } from '../../../test/fetch-mock';
import { adminSession, renderApp } from '../../../test/render-app';

describe('/onlineusers', () => {
  it('says when nobody is online', async () => {
    renderApp({ route: '/onlineusers', session: adminSession, api: { 'POST /api/list_online_users': () => json({ status: 'OK', onlineUsers: [] }) } });
    expect(await screen.findByText('No one is online right now')).toBeInTheDocument();
  });

  it("shows 'Failed to fetch online users' with a hint when the list cannot be loaded", async () => {
    renderApp({ route: '/onlineusers', session: adminSession, api: { 'POST /api/list_online_users': () => json({ status: 'FAIL', errors: ['Forbidden.'] }, 403) } });
    expect(await screen.findByText(AdminMessages.onlineUsersLoadFailed)).toBeInTheDocument();
    expect(screen.getByText(AdminMessages.onlineUsersHint)).toBeInTheDocument();
  });
});
