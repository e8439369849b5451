import { Suspense, lazy, useEffect, useState } from 'react';
import { registerToastHost } from '../lib/toast';

const Toaster = lazy(() => import('./toaster').then((module) => ({ default: module.Toaster })));

/** Mounts the toaster when the first toast is asked for. */
export function ToasterHost() {
  const [isMounted, setIsMounted] = useState(false);
  useEffect(() => registerToastHost(() => setIsMounted(true)), []);
  if (!isMounted) return null;
  return (
    <Suspense fallback={null}>
      <Toaster />
    </Suspense>
  );
}
