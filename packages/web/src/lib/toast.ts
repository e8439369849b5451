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

/** Shows a toast: successes for 2 s, everything else for 5 s (spec section 9). */
export async function showToast(message: string, variant: ToastVariant = 'info', options: ToastOptions = {}): Promise<void> {
  const [{ enqueueSnackbar }] = await Promise.all([import('notistack'), whenToasterReady()]);
  enqueueSnackbar(message, {
    variant,
    autoHideDuration: options.autoHideDurationMs ?? (variant === 'success' ? Limits.toastSuccessMs : Limits.toastErrorMs),
  });
}

export interface ToastOptions {
  /** Overrides the default duration (the avatar creator's error toasts last 4 s). */
  autoHideDurationMs?: number;
}
