import { defineConfig, type Plugin } from 'vite';
import { fileURLToPath } from 'node:url';

const contractSrc = fileURLToPath(new URL('../contract/src/index.ts', import.meta.url));

/**
 * The avatar page's schemas are zod/mini: one contract module on classic zod (its schemas carry
 * their JSON-schema processors and the English locale) added ≈ 19 KB of gzipped JS to every kind
 * of avatar page, the difference between a VRM page inside its 250 KB budget and over it. The
 * build stops if classic zod comes back; a contract module the page imports must use zod/mini
 * (see contract/src/page-figures.ts).
 */
const noClassicZod: Plugin = {
  name: 'persona-avatar-page-without-classic-zod',
  apply: 'build',
  generateBundle(_options, bundle) {
    for (const chunk of Object.values(bundle)) {
      if (chunk.type !== 'chunk') continue;
      const classic = chunk.moduleIds.find((id) => /[\\/]zod[\\/]v4[\\/]classic[\\/]/.test(id));
      if (classic) this.error(`the avatar page's chunk ${chunk.fileName} holds classic zod (${classic}): use zod/mini in the contract modules it imports`);
    }
  },
};

// The avatar page (/avatar/{id}, embedded on customers' sites) is its own build: it shares no
// chunk with the portal, so it downloads only what it uses (no React, no MUI). It writes into
// the portal's dist after the portal's build (same /react/assets/ base, its own manifest).
export default defineConfig({
  base: '/react/',
  plugins: [noClassicZod],
  resolve: { alias: { '@persona/contract/echo-filter': contractSrc.replace(/index\.ts$/, 'echo-filter.ts'), '@persona/contract': contractSrc } },
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
