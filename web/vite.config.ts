import { resolve } from 'node:path';
import preact from '@preact/preset-vite';
import { defineConfig } from 'vite';

/**
 * The web pages LCDS serves (the report viewer under /reports/, the console under /console/): one Vite build of
 * several HTML entries into dist/web, run by `npm run build` after `nest build`. Relative asset URLs: the server
 * gives each page a <base href> under PUBLIC_URL, so the same build works behind any path prefix.
 */
export default defineConfig({
  root: __dirname,
  base: './',
  plugins: [preact()],
  build: {
    outDir: resolve(__dirname, '..', 'dist', 'web'),
    emptyOutDir: true,
    assetsDir: 'web-assets',
    sourcemap: false,
    rollupOptions: {
      input: {
        reports: resolve(__dirname, 'reports', 'index.html'),
        console: resolve(__dirname, 'console', 'index.html'),
      },
    },
  },
});
