import { render } from '@testing-library/react';
import { MemoryRouter, useLocation } from 'react-router';
import type { TPublicConfig } from '@persona/contract';
import { AppProviders } from '../app/providers';
import { AppRoutes } from '../app/router';
import { authStore, type TAuthSession } from '../lib/auth-store';
import { setPublicConfig } from '../lib/config';
import { json, mockFetch, type Handler } from './fetch-mock';

export const testConfig: TPublicConfig = {
  allowRegistration: false,
  appKey: 'test-app-key',
  companyName: 'Acme Avatars Ltd',
  docsUrl: 'https://docs.example.com/persona',
  productName: 'Persona Studio',
};

export function futureIso(hours = 24): string {
  return new Date(Date.now() + hours * 3_600_000).toISOString();
}

export const userSession: TAuthSession = {
  token: 'user-token',
  expiryDate: futureIso(),
  userName: 'Ursula User',
  userType: 'USER',
  adminProxy: false,
};

export const adminSession: TAuthSession = { ...userSession, token: 'admin-token', userName: 'Ada Admin', userType: 'ADMIN' };

export interface RenderAppOptions {
  route?: string;
  config?: Partial<TPublicConfig>;
  session?: TAuthSession | null;
  /** Extra 'METHOD /path' handlers; GET /api/config is provided. */
  api?: Record<string, Handler>;
}

/** Shows the current path so a test can read where the router went. */
function LocationProbe() {
  const location = useLocation();
  return (
    <output data-testid="location" hidden>
      {location.pathname + location.search}
    </output>
  );
}

/** The whole app (providers + routes) at a route, with fetch mocked. */
export function renderApp({ route = '/', config, session = null, api = {} }: RenderAppOptions = {}) {
  const publicConfig = { ...testConfig, ...config };
  setPublicConfig(null);
  authStore.clear();
  if (session) authStore.setSession(session, { isPersistent: true });
  const fetch = mockFetch({ 'GET /api/config': () => json(publicConfig), ...api });
  const view = render(
    <AppProviders>
      <MemoryRouter initialEntries={[route]}>
        <AppRoutes />
        <LocationProbe />
      </MemoryRouter>
    </AppProviders>,
  );
  return { ...view, ...fetch };
}
