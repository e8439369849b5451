import { createContext, useContext } from 'react';
import { safeParse } from 'zod/mini';
import { ZPublicConfig, type TPublicConfig } from '@persona/contract';

/**
 * The browser side's one place for configuration: build-time values from Vite and the public
 * configuration the server hands out before sign-in (GET /api/config).
 */
export const appBasePath = import.meta.env.BASE_URL.replace(/\/$/, '') || '/';
export const isDevBuild = import.meta.env.DEV;

/** Router basename: '/react' in every build (vite.config.ts base). */
export const routerBasename = appBasePath === '/' ? undefined : appBasePath;

let current: TPublicConfig | null = null;

/** The loaded public configuration, or null before /api/config answered. */
export function getPublicConfig(): TPublicConfig | null {
  return current;
}

export function setPublicConfig(config: TPublicConfig | null): void {
  current = config;
}

export function parsePublicConfig(body: unknown): TPublicConfig | null {
  const parsed = safeParse(ZPublicConfig, body);
  return parsed.success ? parsed.data : null;
}

export const PublicConfigContext = createContext<TPublicConfig | null>(null);

export function usePublicConfig(): TPublicConfig {
  const config = useContext(PublicConfigContext);
  if (!config) throw new Error('usePublicConfig() used outside the config gate');
  return config;
}
