import { describe, expect, it, vi } from 'vitest';
import { screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { json, type Handler } from '../../../test/fetch-mock';
import { renderApp } from '../../../test/render-app';

/** A reset_password endpoint: validate answers from `validate`, reset answers from `reset`. */
const resetApi = (validate: Handler, reset: Handler = () => json({ status: 'OK', email: 'pat@example.com' })) => ({
  'POST /api/reset_password': (request: Parameters<Handler>[0]) =>
    (request.body as { mode: string }).mode === 'validate' ? validate(request) : reset(request),
});

const valid = () => json({ status: 'OK', email: 'pat@example.com' });

describe('reset password page', () => {
  it('checks the token first, with the spec texts', async () => {
    let release: (response: Response) => void = () => {};
    const { requests } = renderApp({
      route: '/reset-password/code-123',
      api: resetApi(() => new Promise<Response>((resolve) => (release = resolve))),
    });
    expect(await screen.findByText('Just one second...')).toBeInTheDocument();
    expect(screen.getByText('Checking password reset token validity')).toBeInTheDocument();
    await waitFor(() => expect(requests.some((r) => r.path === '/api/reset_password')).toBe(true));
    const validate = requests.find((r) => r.path === '/api/reset_password');
    expect(validate?.body).toEqual({ resetToken: 'code-123', mode: 'validate' });
    expect(validate?.headers.authorization).toBe('Bearer test-app-key');
    release(valid());
    expect(await screen.findByRole('button', { name: 'Reset Password' })).toBeInTheDocument();
  });

  it("shows 'Invalid Code' with the errors, 'Send Email Again' and 'Back to Sign In' for a bad token", async () => {
    renderApp({
      route: '/reset-password/expired',
      api: resetApi(() => json({ status: 'FAIL', errors: ['This password reset link is invalid or has expired.'] }, 400, 'Bad Request')),
    });
    expect(await screen.findByRole('heading', { name: 'Invalid Code' })).toBeInTheDocument();
    expect(screen.getByText('This password reset link is invalid or has expired.')).toBeInTheDocument();
    expect(screen.getByRole('link', { name: 'Send Email Again' })).toHaveAttribute('href', '/forgotpassword');
    expect(screen.getByRole('link', { name: 'Back to Sign In' })).toHaveAttribute('href', '/login');
  });

  it('shows the gateway text when validation gets no FAIL answer', async () => {
    vi.spyOn(console, 'error').mockImplementation(() => {});
    renderApp({ route: '/reset-password/abc', api: resetApi(() => new Response('', { status: 502, statusText: 'Bad Gateway' })) });
    expect(await screen.findByText('Error Code: 502#Bad Gateway#Unable to reach gateway')).toBeInTheDocument();
  });

  it("says 'Empty Reset Code' without a code, and asks the server nothing", async () => {
    const { requests } = renderApp({ route: '/reset-password' });
    expect(await screen.findByText('Empty Reset Code')).toBeInTheDocument();
    expect(screen.getByRole('heading', { name: 'Invalid Code' })).toBeInTheDocument();
    expect(requests.some((r) => r.path === '/api/reset_password')).toBe(false);
  });

  it('requires a password, toggles its visibility and submits with Enter', async () => {
    const { requests } = renderApp({ route: '/reset-password/code-123', api: resetApi(valid) });
    const user = userEvent.setup();
    await user.click(await screen.findByRole('button', { name: 'Reset Password' }));
    expect(await screen.findByText('Password is required')).toBeInTheDocument();

    const field = screen.getByLabelText('New Password');
    expect(field).toHaveAttribute('type', 'password');
    await user.click(screen.getByRole('button', { name: 'Show password' }));
    expect(field).toHaveAttribute('type', 'text');
    await user.click(screen.getByRole('button', { name: 'Hide password' }));
    expect(field).toHaveAttribute('type', 'password');

    await user.type(field, 'brand-new-secret{Enter}');
    expect(
      await screen.findByText('Password has been reset for pat@example.com successfully. Proceed with Login.'),
    ).toBeInTheDocument();
    expect(screen.getByRole('link', { name: 'Back to Sign In' })).toHaveAttribute('href', '/login');
    expect(requests.filter((r) => r.path === '/api/reset_password').map((r) => r.body)).toEqual([
      { resetToken: 'code-123', mode: 'validate' },
      { resetToken: 'code-123', newPassword: 'brand-new-secret', mode: 'reset' },
    ]);
  });

  it('goes back to the form with the errors when the reset fails', async () => {
    renderApp({
      route: '/reset-password/code-123',
      api: resetApi(valid, () => json({ status: 'FAIL', errors: ['Password must be at least 8 characters'] }, 400, 'Bad Request')),
    });
    const user = userEvent.setup();
    await user.type(await screen.findByLabelText('New Password'), 'whatever-long{Enter}');
    expect(await screen.findByRole('alert')).toHaveTextContent('Password must be at least 8 characters');
    expect(screen.getByRole('button', { name: 'Reset Password' })).toBeInTheDocument();
  });

  it('shows the gateway text when the reset answer is not a FAIL answer', async () => {
    vi.spyOn(console, 'error').mockImplementation(() => {});
    renderApp({
      route: '/reset-password/code-123',
      api: resetApi(valid, () => new Response('', { status: 500, statusText: 'Internal Server Error' })),
    });
    const user = userEvent.setup();
    await user.type(await screen.findByLabelText('New Password'), 'whatever-long{Enter}');
    await waitFor(() =>
      expect(screen.getByRole('alert')).toHaveTextContent('Error Code: 500#Internal Server Error#Unable to reach gateway'),
    );
  });
});
