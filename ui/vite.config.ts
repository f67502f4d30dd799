// The web UI's build: ui/ → dist/ui (index.html + hashed assets), run by `npm run build`.
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

const here = fileURLToPath(new URL('.', import.meta.url));

export default defineConfig({
  root: here,
  base: '/',
  // Preact's automatic JSX runtime: no React, no import of h in every file.
  oxc: { jsx: { runtime: 'automatic', importSource: 'preact' } },
  build: {
    outDir: fileURLToPath(new URL('../dist/ui', import.meta.url)),
    emptyOutDir: true,
    assetsDir: 'assets',
    // The polyfill would be an inline script, which the page's CSP (script-src 'self') refuses.
    modulePreload: { polyfill: false },
    // Tiny assets stay files: an inlined data: URL for a script or style is refused by the CSP too.
    assetsInlineLimit: 0,
    sourcemap: false,
    reportCompressedSize: false,
    chunkSizeWarningLimit: 400,
  },
});
