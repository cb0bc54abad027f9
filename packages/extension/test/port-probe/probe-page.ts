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

Object.assign(globalThis, {
  webbrainProbe: { call, capabilities: () => JSON.stringify(port.capabilities) },
});
document.title = "port probe ready";
