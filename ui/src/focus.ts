/**
 * Where keyboard focus goes when the page changes under it: to the new page's heading, so
 * keyboard and screen reader users land on it instead of on <body> (which is where focus falls
 * when the link or form they used is replaced). Pages that load data show their heading a moment
 * later: this waits for it.
 */

/**
 * Focuses `main h1` as soon as it is in the page (at most `ms` later), unless the person has
 * focused something else meanwhile. Returns a function that stops waiting.
 */
export function focusHeadingWhenReady(ms = 5000): () => void {
  const main = document.getElementById('main');
  if (!main) return () => undefined;
  const before = document.activeElement;
  const attempt = (): boolean => {
    const now = document.activeElement;
    if (now && now !== document.body && now !== before && now !== main) return true; // moved on: leave it there
    const h = main.querySelector<HTMLElement>('h1');
    if (!h) return false;
    h.tabIndex = -1;
    h.focus({ preventScroll: true });
    return true;
  };
  if (attempt()) return () => undefined;
  const observer = new MutationObserver(() => {
    if (attempt()) stop();
  });
  const timer = setTimeout(() => stop(), ms);
  function stop() {
    observer.disconnect();
    clearTimeout(timer);
  }
  observer.observe(main, { childList: true, subtree: true });
  return stop;
}
