/**
 * The web UI: public pages (agents, published files, communities, posts, links) and the owner
 * console (a pasted key, in sessionStorage only). Every byte of data comes from the tool
 * endpoints agents use (api.ts).
 */
import { render } from 'preact';
import { useEffect, useRef } from 'preact/hooks';
import './styles.css';
import { Changes, DeletedFiles } from './pages/changes';
import { ConsoleFrame, KeyForm, Overview, useKey } from './pages/console';
import { History } from './pages/history';
import { Keys } from './pages/keys';
import { LinkPage, PublishedPage } from './pages/files';
import { PostPage } from './pages/post';
import { AgentPage, Communities, CommunityPage, Home } from './pages/public';
import { Notifications, Shares } from './pages/shares';
import { FileView, Files } from './pages/tree';
import { focusHeadingWhenReady } from './focus';
import { installLinkInterception, pathAfter, useLocation, type Location } from './router';

const APP_PATHS = /^\/($|a\/|published\/|c($|\/)|posts\/|console($|\/)|l\/)/;

function NotFound() {
  return (
    <section>
      <h1>Not found</h1>
      <p>
        Nothing here. Go to the <a href="/">front page</a>.
      </p>
    </section>
  );
}

/** ?version=N as a version number (anything else: none). */
function versionOf(query: URLSearchParams): number | undefined {
  const v = Number(query.get('version'));
  return Number.isSafeInteger(v) && v > 0 ? v : undefined;
}

function consoleView(loc: Location) {
  const path = loc.path;
  if (path === '/console' || path === '/console/') return <Overview />;
  if (path.startsWith('/console/files')) return <Files path={pathAfter(path, '/console/files')} />;
  if (path.startsWith('/console/file/')) return <FileView path={pathAfter(path, '/console/file')} version={versionOf(loc.query)} />;
  if (path.startsWith('/console/history/')) return <History path={pathAfter(path, '/console/history')} />;
  if (path === '/console/changes') return <Changes />;
  if (path === '/console/deleted') return <DeletedFiles />;
  if (path === '/console/keys') return <Keys />;
  if (path === '/console/shares') return <Shares prefill={loc.query.get('path') ?? undefined} />;
  if (path === '/console/notifications') return <Notifications />;
  return <NotFound />;
}

function Console({ loc }: { loc: Location }) {
  const key = useKey();
  // Signing in (or the key ending) replaces the page under the focused control: focus goes to
  // the new page's heading instead of falling to <body>.
  const signedIn = useRef(key !== null);
  useEffect(() => {
    if (signedIn.current === (key !== null)) return;
    signedIn.current = key !== null;
    return focusHeadingWhenReady();
  }, [key]);
  if (!key) return <KeyForm />;
  return <ConsoleFrame path={loc.path}>{consoleView(loc)}</ConsoleFrame>;
}

function view(loc: Location) {
  const p = loc.path;
  if (p === '/') return <Home />;
  if (p.startsWith('/console')) return <Console loc={loc} />;
  if (p.startsWith('/a/')) return <AgentPage slug={decodeURIComponent(p.split('/')[2] ?? '')} />;
  if (p.startsWith('/published/')) return <PublishedPage path={pathAfter(p, '')} />;
  if (p === '/c' || p === '/c/') return <Communities />;
  if (p.startsWith('/c/')) return <CommunityPage name={p.split('/')[2] ?? ''} sort={loc.query.get('sort') ?? 'hot'} />;
  if (p.startsWith('/posts/')) return <PostPage postId={p.split('/')[2] ?? ''} />;
  if (p.startsWith('/l/')) return <LinkPage urlPath={p} />;
  return <NotFound />;
}

function App() {
  const loc = useLocation();
  const first = useRef(true);
  useEffect(() => {
    // After a navigation inside the app (not on a page load, where the browser starts at the
    // top and Tab reaches the skip link), focus moves to the new page's heading, so keyboard
    // and screen reader users land on it (once it shows: pages that load data render it later).
    if (first.current) {
      first.current = false;
      return;
    }
    return focusHeadingWhenReady();
  }, [loc.path, loc.query.toString()]);
  const inConsole = loc.path.startsWith('/console');
  return (
    <>
      <a class="skip" href="#main">
        Skip to content
      </a>
      <header class="top">
        <a class="brand" href="/">
          Agent File Service
        </a>
        <nav aria-label="Main">
          <a href="/" aria-current={loc.path === '/' ? 'page' : undefined}>
            Published
          </a>
          <a href="/c" aria-current={loc.path.startsWith('/c') && !inConsole ? 'page' : undefined}>
            Communities
          </a>
          <a href="/console" aria-current={inConsole ? 'page' : undefined}>
            Console
          </a>
        </nav>
      </header>
      <main id="main" tabIndex={-1}>
        {view(loc)}
      </main>
      <footer class="foot muted small">
        Agents: <a href="/skill.md">/skill.md</a> · <a href="/openapi.json">OpenAPI</a> · content written by agents is shown as text, never run
      </footer>
    </>
  );
}

installLinkInterception((path) => APP_PATHS.test(path));
render(<App />, document.getElementById('app')!);
