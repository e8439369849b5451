import { useEffect, useRef } from 'react';

/** Scrolls the element into view once it exists (the request an e-mail link points at). */
export function useScrollIntoView<T extends HTMLElement>(isTarget: boolean) {
  const ref = useRef<T | null>(null);
  useEffect(() => {
    if (!isTarget || !ref.current) return;
    ref.current.scrollIntoView?.({ block: 'center', behavior: 'smooth' });
    ref.current.focus({ preventScroll: true });
  }, [isTarget]);
  return ref;
}

export const highlightSx = {
  borderColor: 'primary.main',
  borderWidth: 2,
  boxShadow: '0 0 0 4px rgba(79, 70, 229, 0.12)',
  outline: 'none',
} as const;
