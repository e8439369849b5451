import { lazy, type ComponentType } from 'react';

export interface LazyPageOptions {
  /** false for pages that never fetch through TanStack Query (the sign-in page). */
  usesQueries?: boolean;
}

/**
 * React.lazy for a module's named export: every page is its own chunk. Pages get TanStack Query's
 * provider, loaded alongside them.
 */
export function lazyPage<M, K extends keyof M>(load: () => Promise<M>, name: K, { usesQueries = true }: LazyPageOptions = {}) {
  return lazy(async () => {
    const Page = (await load())[name] as ComponentType;
    if (!usesQueries) return { default: Page };
    const { QueryProvider } = await import('./query-provider');
    function PageWithQueries() {
      return (
        <QueryProvider>
          <Page />
        </QueryProvider>
      );
    }
    return { default: PageWithQueries };
  });
}
