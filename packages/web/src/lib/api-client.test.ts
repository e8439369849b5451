import { beforeEach, describe, expect, it, vi } from 'vitest';
import { ErrorMessages, ZLoginResponse } from '@persona/contract';
import { json, mockFetch } from '../test/fetch-mock';
import { ApiError, apiRequest, errorMessages, gatewayErrorMessages, TIMEOUT_MESSAGE } from './api-client';
import { authStore } from './auth-store';
import { setPublicConfig } from './config';

const session = {
  token: 'session-token',
  expiryDate: new Date(Date.now() + 3_600_000).toISOString(),
  userName: 'Ursula',
  userType: 'USER' as const,
  adminProxy: false,
};

beforeEach(() => {
  authStore.clear();
  setPublicConfig({ allowRegistration: false, appKey: 'app-key', companyName: 'Acme', docsUrl: '/react/docs', productName: 'Persona Studio' });
});

async function failureOf(promise: Promise<unknown>): Promise<ApiError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof ApiError) return error;
    throw error;
  }
  throw new Error('expected the call to fail');
}

describe('api client', () => {
  it('sends Bearer <appKey>:<sessionToken> when signed in, JSON in and out, from the origin', async () => {
    authStore.setSession(session, { isPersistent: true });
    const { requests, fetchMock } = mockFetch({ 'POST /api/thing': (request) => json({ status: 'OK', echo: request.body }) });
    const answer = await apiRequest('/api/thing', { method: 'POST', body: { a: 1 } });
    expect(answer).toEqual({ status: 'OK', echo: { a: 1 } });
    expect(requests[0]?.headers.authorization).toBe('Bearer app-key:session-token');
    expect(requests[0]?.headers['content-type']).toBe('application/json');
    expect(String(fetchMock.mock.calls[0]?.[0])).toBe(`${window.location.origin}/api/thing`);
  });

  it('sends only Bearer <appKey> without a session, and for calls that never use one', async () => {
    const { requests } = mockFetch({ 'GET /api/open': () => json({ status: 'OK' }) });
    await apiRequest('/api/open');
    authStore.setSession(session, { isPersistent: true });
    await apiRequest('/api/open', { auth: 'app' });
    await apiRequest('/api/open', { auth: 'none' });
    expect(requests.map((r) => r.headers.authorization)).toEqual(['Bearer app-key', 'Bearer app-key', undefined]);
  });

  it('gives up after 10 seconds with a timeout error', async () => {
    vi.useFakeTimers();
    vi.stubGlobal(
      'fetch',
      vi.fn(
        (_input: RequestInfo | URL, init?: RequestInit) =>
          new Promise((_resolve, reject) => {
            init?.signal?.addEventListener('abort', () => reject(new DOMException('Aborted', 'AbortError')));
          }),
      ),
    );
    const pending = failureOf(apiRequest('/api/slow'));
    await vi.advanceTimersByTimeAsync(9_999);
    let settled = false;
    void pending.then(() => (settled = true));
    await Promise.resolve();
    expect(settled).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    const error = await pending;
    expect(error.kind).toBe('timeout');
    expect(error.status).toBe(0);
    expect(error.message).toBe(TIMEOUT_MESSAGE);
  });

  it('signs the user out on a 401', async () => {
    authStore.setSession(session, { isPersistent: true });
    mockFetch({ 'GET /api/account_info': () => json({ status: 'FAIL', errors: ['Session expired.'], failReason: 6 }, 401, 'Unauthorized') });
    const error = await failureOf(apiRequest('/api/account_info'));
    expect(error.status).toBe(401);
    expect(authStore.getSession()).toBeNull();
    expect(window.localStorage.length).toBe(0);
  });

  it('does not sign out when the login call itself answers 401', async () => {
    authStore.setSession(session, { isPersistent: true });
    mockFetch({ 'POST /api/login': () => json({ status: 'FAIL', errors: ['Invalid email or password.'] }, 401, 'Unauthorized') });
    const error = await failureOf(apiRequest('/api/login', { method: 'POST', body: {}, logoutOnUnauthorized: false }));
    expect(error.errors).toEqual(['Invalid email or password.']);
    expect(authStore.getSession()?.token).toBe('session-token');
  });

  it('logs a 500 and hides its details behind the catalogue message', async () => {
    const consoleError = vi.spyOn(console, 'error').mockImplementation(() => {});
    mockFetch({ 'GET /api/broken': () => new Response('boom', { status: 500, statusText: 'Internal Server Error' }) });
    const error = await failureOf(apiRequest('/api/broken'));
    expect(error).toMatchObject({ kind: 'http', status: 500, statusText: 'Internal Server Error', body: 'boom', errors: [] });
    expect(consoleError).toHaveBeenCalledWith(expect.stringContaining('500'), 'boom');
    expect(errorMessages(error)).toEqual([ErrorMessages.serverError]);
  });

  it('parses a JSON FAIL answer into errors and failReason', async () => {
    mockFetch({ 'POST /api/x': () => json({ status: 'FAIL', errors: ['Name is required'], failReason: 7 }, 400, 'Bad Request') });
    const error = await failureOf(apiRequest('/api/x', { method: 'POST', body: {} }));
    expect(error.body).toEqual({ status: 'FAIL', errors: ['Name is required'], failReason: 7 });
    expect(error.failReason).toBe(7);
    expect(errorMessages(error)).toEqual(['Name is required']);
  });

  it('treats a 200 FAIL answer as a failure too', async () => {
    mockFetch({ 'GET /api/y': () => json({ status: 'FAIL', errors: ['Nope'] }) });
    const error = await failureOf(apiRequest('/api/y'));
    expect(error.errors).toEqual(['Nope']);
  });

  it('reports a network failure', async () => {
    vi.stubGlobal('fetch', vi.fn(() => Promise.reject(new TypeError('Failed to fetch'))));
    const error = await failureOf(apiRequest('/api/z'));
    expect(error.kind).toBe('network');
    expect(error.message).toBe(ErrorMessages.networkError);
  });

  it('validates the answer with a schema', async () => {
    vi.spyOn(console, 'error').mockImplementation(() => {});
    mockFetch({ 'POST /api/login': () => json({ status: 'MAYBE' }) });
    const error = await failureOf(apiRequest('/api/login', { method: 'POST', body: {}, schema: ZLoginResponse }));
    expect(error.kind).toBe('invalid-response');
  });
});

describe('gateway messages for login and reset_password', () => {
  it("is 'Error Code: {status}#{text}#Unable to reach gateway' without server errors", async () => {
    mockFetch({ 'POST /api/login': () => new Response('<html>Bad gateway</html>', { status: 502, statusText: 'Bad Gateway' }) });
    vi.spyOn(console, 'error').mockImplementation(() => {});
    const error = await failureOf(apiRequest('/api/login', { method: 'POST', body: {} }));
    expect(gatewayErrorMessages(error)).toEqual(['Error Code: 502#Bad Gateway#Unable to reach gateway']);
  });

  it('uses the standard reason phrase when the answer carries none (HTTP/2)', async () => {
    mockFetch({ 'POST /api/login': () => new Response('', { status: 404 }) });
    const error = await failureOf(apiRequest('/api/login', { method: 'POST', body: {} }));
    expect(gatewayErrorMessages(error)).toEqual(['Error Code: 404#Not Found#Unable to reach gateway']);
  });

  it('shows the server errors when the FAIL answer has them', async () => {
    mockFetch({ 'POST /api/login': () => json({ status: 'FAIL', errors: ['Too many failed sign-in attempts.'] }, 429, 'Too Many Requests') });
    const error = await failureOf(apiRequest('/api/login', { method: 'POST', body: {}, logoutOnUnauthorized: false }));
    expect(gatewayErrorMessages(error)).toEqual(['Too many failed sign-in attempts.']);
  });
});
