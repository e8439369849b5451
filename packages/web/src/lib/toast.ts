import { Limits } from '@persona/contract';

export type ToastVariant = 'success' | 'error' | 'info' | 'warning';

/**
 * Toasts (notistack) are loaded on first use, so pages that never toast (sign-in) do not download
 * them. The app mounts a host (app/toaster-host.tsx) that renders the notistack provider once asked.
 */
let requestHost: (() => void) | null = null;
let hostReady: Promise<void> | null = null;
let resolveHostReady: (() => void) | null = null;

/** Called by the host component: how to mount the toaster. */
export function registerToastHost(mount: () => void): () => void {
  requestHost = mount;
  if (hostReady) mount();
  return () => {
    if (requestHost === mount) requestHost = null;
  };
}

/** Called by the toaster once notistack's provider is mounted. */
export function markToasterReady(): void {
  resolveHostReady?.();
}

function whenToasterReady(): Promise<void> {
  if (!hostReady) {
    hostReady = new Promise((resolve) => {
      resolveHostReady = resolve;
    });
    requestHost?.();
  }
  return hostReady;
}

/** The toast on screen for each `id`: a later toast with the same id replaces it. */
const shownById = new Map<string, string | number>();

/**
 * Shows a toast: successes for 2 s, everything else for 5 s (spec section 9). With an `id`, the
 * toast replaces the one shown before under that id ('Creating...' gives way to its outcome; an
 * error does not stay beside the success that followed it).
 */
export async function showToast(message: string, variant: ToastVariant = 'info', options: ToastOptions = {}): Promise<void> {
  const [{ enqueueSnackbar, closeSnackbar }] = await Promise.all([import('notistack'), whenToasterReady()]);
  if (options.id !== undefined) {
    const previous = shownById.get(options.id);
    if (previous !== undefined) closeSnackbar(previous);
  }
  const key = enqueueSnackbar(message, {
    variant,
    autoHideDuration: options.autoHideDurationMs ?? (variant === 'success' ? Limits.toastSuccessMs : Limits.toastErrorMs),
  });
  if (options.id !== undefined) shownById.set(options.id, key);
}

/** Closes the toast shown under `id`, if any (e.g. a progress toast whose outcome is shown in the page). */
export async function closeToast(id: string): Promise<void> {
  const key = shownById.get(id);
  if (key === undefined) return;
  shownById.delete(id);
  const { closeSnackbar } = await import('notistack');
  closeSnackbar(key);
}

export interface ToastOptions {
  /** Overrides the default duration (the avatar creator's error toasts last 4 s). */
  autoHideDurationMs?: number;
  /** Replaces the toast shown before under the same id. */
  id?: string;
}
