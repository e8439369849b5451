import { defineConfig, type Plugin } from 'vite';
import react from '@vitejs/plugin-react';
import { fileURLToPath } from 'node:url';
import { readFile } from 'node:fs/promises';

const contractSrc = fileURLToPath(new URL('../contract/src/index.ts', import.meta.url));
const serverOrigin = 'http://127.0.0.1:3000';
const avatarHtml = fileURLToPath(new URL('./avatar.html', import.meta.url));

/** npm run dev: /avatar/{id} is the avatar page's own entry, with hot reload (the server serves the build otherwise). */
const avatarPageInDev: Plugin = {
  name: 'persona-avatar-page-dev',
  configureServer(server) {
    server.middlewares.use((req, res, next) => {
      const url = req.url ?? '';
      if (!/^\/avatar\/\d{1,10}(?:[?#]|$)/.test(url)) return next();
      void readFile(avatarHtml, 'utf8')
        .then((html) => server.transformIndexHtml(url, html))
        .then((html) => {
          res.setHeader('content-type', 'text/html');
          res.end(html);
        }, next);
    });
  },
};

// The server serves this build under /react (SPA fallback); hashed assets live in dist/assets.
export default defineConfig({
  base: '/react/',
  plugins: [react(), avatarPageInDev],
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
      // The embedded worker's page socket (the page at /avatar/{id} is served by the plugin above).
      '^/avatar-ws': { target: serverOrigin, ws: true },
    },
  },
});
