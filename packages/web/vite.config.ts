import { defineConfig, type Plugin } from 'vite';
import react from '@vitejs/plugin-react';
import { fileURLToPath } from 'node:url';
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';

const contractSrc = fileURLToPath(new URL('../contract/src/index.ts', import.meta.url));
const serverOrigin = 'http://127.0.0.1:3000';
const avatarHtml = fileURLToPath(new URL('./avatar.html', import.meta.url));
const portalTheme = fileURLToPath(new URL('./src/app/theme.ts', import.meta.url));

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

/**
 * Material UI's createTheme() and ThemeProvider pick their CSS-variables variant at run time (the
 * cssVariables and colorSchemes options), so a bundler keeps both, and MUI's defaultTheme (behind
 * every styled component) calls createTheme() too. The portal's theme (app/theme.ts) sets neither
 * option, and for such a theme MUI itself returns createThemeNoVars() and renders
 * ThemeProviderNoVars. The styles barrel's imports of the two are resolved to those variants, so
 * the CSS-variables machinery (createThemeWithVars, CssVarsProvider, InitColorSchemeScript...),
 * which never runs here, leaves every page: about 8 KB of gzipped JS, the sign-in page's included.
 * The build stops if the theme turns CSS variables or colour schemes on: then this plugin must go.
 */
const MUI_NO_VARS_VARIANTS: Record<string, string> = { './createTheme.mjs': 'createThemeNoVars.mjs', './ThemeProvider.mjs': 'ThemeProviderNoVars.mjs' };
const muiThemeWithoutCssVariables: Plugin = {
  name: 'persona-mui-theme-without-css-variables',
  apply: 'build',
  enforce: 'pre',
  async buildStart() {
    if (/\b(cssVariables|colorSchemes)\b/.test(await readFile(portalTheme, 'utf8'))) {
      this.error('app/theme.ts uses CSS variables or colour schemes: remove muiThemeWithoutCssVariables from vite.config.ts');
    }
  },
  resolveId(source, importer) {
    const variant = MUI_NO_VARS_VARIANTS[source];
    if (!variant || !importer || !/[\\/]@mui[\\/]material[\\/]styles[\\/](index|defaultTheme)\.mjs$/.test(importer)) return null;
    const resolved = path.join(path.dirname(importer), variant);
    if (!existsSync(resolved)) throw new Error(`Material UI has no ${resolved} any more: review muiThemeWithoutCssVariables in vite.config.ts`);
    return resolved;
  },
};

// The server serves this build under /react (SPA fallback); hashed assets live in dist/assets.
export default defineConfig({
  base: '/react/',
  plugins: [react(), avatarPageInDev, muiThemeWithoutCssVariables],
  resolve: { alias: { '@persona/contract/echo-filter': contractSrc.replace(/index\.ts$/, 'echo-filter.ts'), '@persona/contract': contractSrc } },
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
