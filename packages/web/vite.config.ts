import { defineConfig } from 'vite';
import react from '@vitejs/plugin-react';
import { fileURLToPath } from 'node:url';

const contractSrc = fileURLToPath(new URL('../contract/src/index.ts', import.meta.url));
const serverOrigin = 'http://127.0.0.1:3000';

// The server serves this build under /react (SPA fallback); hashed assets live in dist/assets.
export default defineConfig({
  base: '/react/',
  plugins: [react()],
  resolve: { alias: { '@persona/contract': contractSrc } },
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    manifest: true,
    sourcemap: true,
    chunkSizeWarningLimit: 600,
    rolldownOptions: {
      treeshake: {
        // The contract is plain declarations: a page keeps only the schemas it uses.
        moduleSideEffects: [{ test: /[\\/]packages[\\/]contract[\\/]src[\\/]/, sideEffects: false }],
      },
      output: {
        codeSplitting: {
          groups: [{ name: 'vendor', test: /node_modules/, tags: ['$initial'] }],
        },
      },
    },
  },
  server: {
    port: 5173,
    proxy: {
      '/api': serverOrigin,
      '^/knowledge': serverOrigin,
      '^/stt/': serverOrigin,
      '^/tts/': serverOrigin,
      '^/avatar(/|$)': { target: serverOrigin, ws: true },
    },
  },
});
