import { linkIn, waitForMail } from './mailbox';

export interface Account {
  email: string;
  password: string;
  firstName: string;
}

export function baseUrl(): string {
  return `http://127.0.0.1:${process.env.E2E_PORT}`;
}

let appKey: string | null = null;

async function getAppKey(): Promise<string> {
  if (!appKey) {
    const answer = (await (await fetch(`${baseUrl()}/api/config`)).json()) as { appKey: string };
    appKey = answer.appKey;
  }
  return appKey;
}

/** Calls the API the way the portal does (app key only: these calls need no session). */
export async function callApi(path: string, body: unknown, sessionToken?: string): Promise<{ status: number; json: Record<string, unknown> }> {
  const key = await getAppKey();
  const response = await fetch(`${baseUrl()}${path}`, {
    method: body === undefined ? 'GET' : 'POST',
    headers: {
      Authorization: `Bearer ${key}${sessionToken ? `:${sessionToken}` : ''}`,
      ...(body === undefined ? {} : { 'Content-Type': 'application/json' }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: response.status, json: (await response.json().catch(() => ({}))) as Record<string, unknown> };
}

let counter = 0;

/** A fresh, unique e-mail address for one test. */
export function uniqueEmail(prefix: string): string {
  return `${prefix}-${process.pid}-${Date.now()}-${++counter}@e2e.test`.toLowerCase();
}

/** Registers an account through the API and verifies it with the link from the e-mail. */
export async function createVerifiedAccount(prefix = 'user'): Promise<Account> {
  const account: Account = { email: uniqueEmail(prefix), password: `pw-${Math.random().toString(36).slice(2)}-Aa1`, firstName: 'Robin' };
  const since = Date.now();
  const registered = await callApi('/api/register', {
    firstName: account.firstName,
    lastName: 'Tester',
    companyName: 'E2E Ltd',
    mobileNumber: '',
    email: account.email,
    password: account.password,
  });
  if (registered.status !== 200) throw new Error(`register failed: ${registered.status} ${JSON.stringify(registered.json)}`);
  const mail = await waitForMail(account.email, { since, subject: /verif/i });
  const code = linkIn(mail, '/react/email-verification/').split('/').pop();
  const verified = await callApi('/api/email_verification', { verificationCode: code, mode: 'verify' });
  if (verified.status !== 200) throw new Error(`verification failed: ${verified.status} ${JSON.stringify(verified.json)}`);
  return account;
}

/** Signs in through the API; the session id. */
export async function apiLogin(email: string, password: string): Promise<string> {
  const answer = await callApi('/api/login', { email, password });
  if (answer.status !== 200) throw new Error(`login failed: ${answer.status} ${JSON.stringify(answer.json)}`);
  return answer.json.sessionId as string;
}

export function adminAccount(): Account {
  return { email: process.env.E2E_ADMIN_EMAIL ?? '', password: process.env.E2E_ADMIN_PASSWORD ?? '', firstName: 'Admin' };
}
