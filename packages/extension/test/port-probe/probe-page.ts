/**
 * Test-only add-on page: the add-on's real BrowserPort, built into the installed add-on beside
 * the background page, so tests call it over BiDi (`script.evaluate` in this page) and it reaches
 * pages through the add-on's real manifest, permissions and content scripts.
 *
 * Every call answers JSON text, so BiDi's value serialisation never reshapes a result.
 */
import { WebExtBrowserPort } from "../../src/background/webext-browser-port.js";

const port = new WebExtBrowserPort();

async function call(method: string, args: unknown[]): Promise<string> {
  const fn = (port as unknown as Record<string, unknown>)[method];
  if (typeof fn !== "function") throw new Error(`WebExtBrowserPort has no method ${method}`);
  const value: unknown = await (fn as (...a: unknown[]) => Promise<unknown>).apply(port, args);
  return JSON.stringify(value ?? null);
}

/**
 * Calls the port with `{signal}` as its last argument and fires Stop after `stopAfterMs`; answers
 * how the call ended and how long after Stop it took.
 */
async function callStopped(method: string, args: unknown[], stopAfterMs: number): Promise<string> {
  const stop = new AbortController();
  let stoppedAt = 0;
  setTimeout(() => {
    stoppedAt = performance.now();
    stop.abort();
  }, stopAfterMs);
  try {
    const value = await call(method, [...args, { signal: stop.signal }]);
    return JSON.stringify({ ended: "resolved", value: JSON.parse(value) as unknown });
  } catch (error) {
    const afterStopMs = stoppedAt ? performance.now() - stoppedAt : -1;
    return JSON.stringify({ ended: "rejected", name: (error as Error).name, afterStopMs });
  }
}

Object.assign(globalThis, {
  webbrainProbe: { call, callStopped, capabilities: () => JSON.stringify([...port.capabilities]) },
});
document.title = "port probe ready";
