import { defineConfig } from 'vite';
import { fileURLToPath } from 'node:url';

const contractSrc = fileURLToPath(new URL('../contract/src/index.ts', import.meta.url));

// The avatar page (/avatar/{id}, embedded on customers' sites) is its own build: it shares no
// chunk with the portal, so it downloads only what it uses (no React, no MUI). It writes into
// the portal's dist after the portal's build (same /react/assets/ base, its own manifest).
export default defineConfig({
  base: '/react/',
  resolve: { alias: { '@persona/contract': contractSrc } },
  build: {
    outDir: 'dist',
    emptyOutDir: false,
    manifest: 'avatar-manifest.json',
    sourcemap: true,
    rolldownOptions: {
      input: {
        avatar: fileURLToPath(new URL('./avatar.html', import.meta.url)),
        // What a site the avatar does not allow sees in its frame (ADR 085).
        'avatar-refused': fileURLToPath(new URL('./avatar-refused.html', import.meta.url)),
      },
      treeshake: {
        moduleSideEffects: [{ test: /[\\/]packages[\\/]contract[\\/]src[\\/]/, sideEffects: false }],
      },
    },
  },
});
