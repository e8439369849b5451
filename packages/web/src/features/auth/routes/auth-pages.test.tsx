import { describe, expect, it, vi } from 'vitest';
import { screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { json } from '../../../test/fetch-mock';
import { renderApp } from '../../../test/render-app';

describe('registration', () => {
  it('explains that registration is not available when the portal does not allow it', async () => {
    const { requests } = renderApp({ route: '/register' });
    expect(await screen.findByRole('heading', { name: 'Registration is not available' })).toBeInTheDocument();
    expect(screen.getByRole('link', { name: 'Back to Sign In' })).toHaveAttribute('href', '/login');
    expect(requests.some((r) => r.path === '/api/register')).toBe(false);
  });

  it('validates, registers, and says the verification e-mail was sent', async () => {
    const { requests } = renderApp({
      route: '/register',
      config: { allowRegistration: true },
      api: { 'POST /api/register': () => json({ status: 'OK' }) },
    });
    const user = userEvent.setup();
    await user.click(await screen.findByRole('button', { name: 'Register' }));
    expect(await screen.findByText('First Name is required')).toBeInTheDocument();
    expect(screen.getByText('Last Name is required')).toBeInTheDocument();
    expect(screen.getByText('Email is required')).toBeInTheDocument();
    expect(screen.getByText('Password is required')).toBeInTheDocument();

    await user.type(screen.getByLabelText('First Name'), 'Pat');
    await user.type(screen.getByLabelText('Last Name'), 'Lee');
    await user.type(screen.getByLabelText('Company Name (optional)'), 'Acme');
    await user.type(screen.getByLabelText('Mobile number (optional)'), '+44 20 7946 0000');
    await user.type(screen.getByLabelText('Email'), 'pat@example.com');
    await user.type(screen.getByLabelText('Password'), 'long-enough-secret');
    await user.click(screen.getByRole('button', { name: 'Register' }));

    expect(await screen.findByRole('heading', { name: 'Verification email sent' })).toBeInTheDocument();
    expect(requests.find((r) => r.path === '/api/register')?.body).toEqual({
      firstName: 'Pat',
      lastName: 'Lee',
      companyName: 'Acme',
      mobileNumber: '+44 20 7946 0000',
      email: 'pat@example.com',
      password: 'long-enough-secret',
    });
  });

  it("lists the server's errors under 'Registration Failed'", async () => {
    renderApp({
      route: '/register',
      config: { allowRegistration: true },
      api: { 'POST /api/register': () => json({ status: 'FAIL', errors: ['Registration is closed.'] }, 403, 'Forbidden') },
    });
    const user = userEvent.setup();
    await user.type(await screen.findByLabelText('First Name'), 'Pat');
    await user.type(screen.getByLabelText('Last Name'), 'Lee');
    await user.type(screen.getByLabelText('Email'), 'pat@example.com');
    await user.type(screen.getByLabelText('Password'), 'long-enough-secret');
    await user.click(screen.getByRole('button', { name: 'Register' }));
    const panel = await screen.findByRole('alert');
    expect(panel).toHaveTextContent('Registration Failed');
    expect(panel).toHaveTextContent('Registration is closed.');
  });
});

describe('forgot password', () => {
  it("sends the e-mail and shows 'Email sent'", async () => {
    const { requests } = renderApp({ route: '/forgotpassword', api: { 'POST /api/forgot_password': () => json({ status: 'OK' }) } });
    const user = userEvent.setup();
    await user.click(await screen.findByRole('button', { name: 'Send Reset Link' }));
    expect(await screen.findByText('Email is required')).toBeInTheDocument();
    await user.type(screen.getByLabelText('Email'), 'pat@example.com');
    await user.click(screen.getByRole('button', { name: 'Send Reset Link' }));
    expect(await screen.findByRole('heading', { name: 'Email sent' })).toBeInTheDocument();
    expect(requests.find((r) => r.path === '/api/forgot_password')?.body).toEqual({ email: 'pat@example.com' });
  });

  it("shows 'Mail Delivery Failed' when the mail could not be sent", async () => {
    renderApp({
      route: '/forgotpassword',
      api: { 'POST /api/forgot_password': () => json({ status: 'FAIL', errors: ['The e-mail could not be sent.'] }, 500, 'Internal Server Error') },
    });
    vi.spyOn(console, 'error').mockImplementation(() => {});
    const user = userEvent.setup();
    await user.type(await screen.findByLabelText('Email'), 'pat@example.com');
    await user.click(screen.getByRole('button', { name: 'Send Reset Link' }));
    const panel = await screen.findByRole('alert');
    expect(panel).toHaveTextContent('Mail Delivery Failed');
    expect(panel).toHaveTextContent('The e-mail could not be sent.');
  });
});

describe('e-mail verification', () => {
  it("verifies the code on load and shows the server's message", async () => {
    const { requests } = renderApp({
      route: '/email-verification/verify-me',
      api: {
        'POST /api/email_verification': () =>
          json({ status: 'OK', email: 'pat@example.com', firstName: 'Pat', displayTitle: 'Email verified', displayMessage: 'You can now sign in.' }),
      },
    });
    expect(await screen.findByRole('heading', { name: 'Email verified' })).toBeInTheDocument();
    expect(screen.getByText('You can now sign in.')).toBeInTheDocument();
    expect(screen.getByRole('link', { name: 'Back to Sign In' })).toHaveAttribute('href', '/login');
    const calls = requests.filter((r) => r.path === '/api/email_verification');
    expect(calls.map((r) => r.body)).toEqual([{ verificationCode: 'verify-me', mode: 'verify' }]);
  });

  it('shows a failure with a red icon', async () => {
    renderApp({
      route: '/email-verification/used',
      api: {
        'POST /api/email_verification': () =>
          json(
            { status: 'FAIL', displayTitle: 'Verification Failed', displayMessage: 'This verification link is invalid or has expired.', errors: ['x'] },
            400,
            'Bad Request',
          ),
      },
    });
    expect(await screen.findByRole('heading', { name: 'Verification Failed' })).toBeInTheDocument();
    expect(screen.getByText('This verification link is invalid or has expired.')).toBeInTheDocument();
    expect(screen.getByTestId('verification-error-icon')).toHaveClass('MuiSvgIcon-colorError');
  });
});
