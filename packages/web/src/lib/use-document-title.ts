import { useEffect } from 'react';
import { getPublicConfig } from './config';

/** Sets the browser tab title to "{title} · {product}". */
export function useDocumentTitle(title: string): void {
  useEffect(() => {
    const product = getPublicConfig()?.productName ?? 'Persona Studio';
    document.title = title ? `${title} · ${product}` : product;
  }, [title]);
}
