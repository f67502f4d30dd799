// npm run screenshots: the web UI's main pages as PNGs in docs/screenshots (linked from the README),
// taken from a real server (SQLite, a temporary database) seeded through the tools, in Debian's Chromium.
import { startUiServer, launchBrowser } from '../dist/test/helpers/browser.js';
import { seedUiWorld } from '../dist/test/helpers/ui-world.js';
import { takeScreenshots } from '../dist/test/helpers/ui-screens.js';

const dir = process.argv[2] ?? 'docs/screenshots';
const server = await startUiServer('sqlite');
const browser = await launchBrowser();
try {
  const world = await seedUiWorld(server);
  const files = await takeScreenshots(browser, server.url, world, dir);
  for (const f of files) console.log(f);
} finally {
  await browser.close();
  await server.close();
}
