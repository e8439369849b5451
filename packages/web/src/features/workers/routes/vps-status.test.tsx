import { describe, expect, it } from 'vitest';
import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { AdminMessages, type TVps } from '@persona/contract';
import { json, type Handler } from '../../../test/fetch-mock';
import { adminSession, renderApp } from '../../../test/render-app';
import { deleteVpsErrors } from '../api/delete-vps';
import { ApiError } from '../../../lib/api-client';

const vps = (id: number, status: TVps['status']): TVps => ({
  id,
  vpsId: `vps-${id}`,
  name: `worker-${id}`,
  vpsName: `worker-${id}`,
  sessionId: null,
  vpsAddress: 'vm',
  dockerPrivateIp: '10.0.0.2',
  remoteIp: '127.0.0.1',
  status,
  assignedUserId: null,
  webSocket: 'ws://127.0.0.1:4000',
  created: '2026-11-01T10:00:00.000Z',
  lastConnectTime: '2026-11-01T10:00:00.000Z',
  lastPingTime: '2026-11-01T10:05:00.000Z',
  lastUsedTime: null,
});

function api(extra: Record<string, Handler> = {}) {
  return {
    'GET /api/list_vps': () => json({ status: 'OK', vpsList: [vps(1, 'AVAILABLE'), vps(2, 'DISCONNECTED')] }),
    'POST /api/get_vps': () => json({ status: 'OK', vpsDetail: vps(1, 'AVAILABLE'), errors: [] }),
    ...extra,
  };
}

describe('/vpsstatus', () => {
  it("shows 'Connected VPS' with ID, Name, Status (AVAILABLE green, anything else red) and delete", async () => {
    renderApp({ route: '/vpsstatus', session: adminSession, api: api() });
    const table = await screen.findByRole('table', { name: 'Connected VPS' });
    expect(within(table).getByText('AVAILABLE').closest('.MuiChip-root')).toHaveClass('MuiChip-colorSuccess');
    expect(within(table).getByText('DISCONNECTED').closest('.MuiChip-root')).toHaveClass('MuiChip-colorError');
    expect(within(table).getByRole('button', { name: 'Delete VPS 2' })).toBeInTheDocument();
  });

  it('opens the details of an ID, with refresh', async () => {
    const { requests } = renderApp({ route: '/vpsstatus', session: adminSession, api: api() });
    await userEvent.click(await screen.findByRole('button', { name: 'Details of VPS 1' }));
    const dialog = await screen.findByRole('dialog', { name: /VPS worker-1/ });
    expect(await within(dialog).findByText('ws://127.0.0.1:4000')).toBeInTheDocument();
    await userEvent.click(within(dialog).getByRole('button', { name: 'Refresh details' }));
    await waitFor(() => expect(requests.filter((r) => r.path === '/api/get_vps')).toHaveLength(2));
    expect(requests.find((r) => r.path === '/api/get_vps')?.body).toEqual({ vpsId: 1, mode: 'get' });
  });

  it('deletes after confirmation: the row goes, and the success dialog closes after 3 s', async () => {
    const { requests } = renderApp({ route: '/vpsstatus', session: adminSession, api: api({ 'POST /api/del_vps': () => json({ status: 'OK', vpsId: 2, errors: [] }) }) });
    await userEvent.click(await screen.findByRole('button', { name: 'Delete VPS 2' }));
    const confirm = screen.getByRole('dialog', { name: 'Delete VPS?' });
    await userEvent.click(within(confirm).getByRole('button', { name: 'Delete' }));
    expect(await screen.findByRole('dialog', { name: 'VPS deleted' })).toBeInTheDocument();
    expect(requests.find((r) => r.path === '/api/del_vps')?.body).toEqual({ vpsId: 2, mode: 'delete' });
    expect(screen.queryByRole('button', { name: 'Delete VPS 2' })).not.toBeInTheDocument();
    await waitFor(() => expect(screen.queryByRole('dialog', { name: 'VPS deleted' })).not.toBeInTheDocument(), { timeout: 4500 });
  }, 20_000);

  it('lists the failure texts of a delete', async () => {
    renderApp({ route: '/vpsstatus', session: adminSession, api: api({ 'POST /api/del_vps': () => json({ status: 'FAIL', errors: [AdminMessages.vpsInvalid] }, 404) }) });
    await userEvent.click(await screen.findByRole('button', { name: 'Delete VPS 1' }));
    const confirm = screen.getByRole('dialog', { name: 'Delete VPS?' });
    await userEvent.click(within(confirm).getByRole('button', { name: 'Delete' }));
    expect(await within(confirm).findByText(AdminMessages.vpsInvalid)).toBeInTheDocument();
  });

  it('maps failures to the spec texts or the HTTP status', () => {
    const http = (status: number, body: unknown = null, statusText = '') => new ApiError({ kind: 'http', message: 'x', status, statusText, body });
    expect(deleteVpsErrors(http(500))).toEqual([AdminMessages.vpsDeleteServerError]);
    expect(deleteVpsErrors(http(404))).toEqual([AdminMessages.vpsInvalid]);
    expect(deleteVpsErrors(http(409))).toEqual([AdminMessages.vpsAlreadyDisconnected]);
    expect(deleteVpsErrors(http(409, { status: 'FAIL', errors: [AdminMessages.vpsAlreadyDisconnected] }))).toEqual([AdminMessages.vpsAlreadyDisconnected]);
    expect(deleteVpsErrors(http(403, null, 'Forbidden'))).toEqual(['Error 403 Forbidden']);
  });
});
