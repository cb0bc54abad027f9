/**
 * useFirefox: one real Firefox per vitest file, a fresh tab per test.
 *
 * Invariants:
 * - Call at the top level of a test file: it registers beforeAll (launch), afterEach (close the
 *   tabs this test opened) and afterAll (close the browser, also when tests or beforeAll failed).
 * - `newTab()` uses browsingContext.create({type: "tab"}): that tab has focus, unlike the initial
 *   tab of headless Firefox 153, so focus-driven widgets behave as for a person.
 * - `newTab({ isolated: true })` opens the tab in a fresh user context (its own cookies and
 *   storage); the user context is removed after the test, with its tabs.
 * - Reading `browser`/`client` before beforeAll ran is a clear error, not undefined.
 */
import {
  type BidiClient,
  closeContext,
  createTab,
  type FirefoxBrowser,
  type LaunchOptions,
  launchFirefox,
} from "@webbrain/bidi";
import { afterAll, afterEach, beforeAll } from "vitest";

export interface NewTabOptions {
  /** Open the tab in a fresh user context: no cookies or storage shared with other tabs. */
  isolated?: boolean;
}

export interface FirefoxHarness {
  readonly browser: FirefoxBrowser;
  readonly client: BidiClient;
  /** Opens a focused tab, closed automatically after the current test. Returns its context id. */
  newTab(opts?: NewTabOptions): Promise<string>;
}

/**
 * Whether test browsers run headless: yes, unless `WEBBRAIN_TEST_HEADED=1` asks to watch them
 * (needs a display; see CONTRIBUTING.md). A test's own `headless` option still wins.
 */
export function testsRunHeadless(env: NodeJS.ProcessEnv = process.env): boolean {
  return env.WEBBRAIN_TEST_HEADED !== "1";
}

/**
 * `opts` may be a function, awaited in beforeAll: for options known only once something async
 * has started (a server whose URL goes into Firefox's environment).
 */
export function useFirefox(opts: LaunchOptions | (() => Promise<LaunchOptions>) = {}): FirefoxHarness {
  let browser: FirefoxBrowser | undefined;
  const testTabs = new Set<string>();
  const testUserContexts = new Set<string>();

  beforeAll(async () => {
    const options = typeof opts === "function" ? await opts() : opts;
    browser = await launchFirefox({ headless: testsRunHeadless(), ...options });
  });

  afterEach(async () => {
    const tabs = [...testTabs];
    const userContexts = [...testUserContexts];
    testTabs.clear();
    testUserContexts.clear();
    if (!browser || browser.client.closed) return;
    const client = browser.client;
    // Already-closed tabs are fine: the test may have closed them itself.
    await Promise.all(tabs.map((context) => closeContext(client, context).catch(() => {})));
    await Promise.all(
      userContexts.map((userContext) =>
        client.send("browser.removeUserContext", { userContext }).catch(() => {}),
      ),
    );
  });

  afterAll(async () => {
    await browser?.close();
  });

  const current = (): FirefoxBrowser => {
    if (!browser) {
      throw new Error(
        "useFirefox: the browser is not running: use it inside tests or hooks (not at file top level), and check beforeAll's launch error.",
      );
    }
    return browser;
  };

  return {
    get browser() {
      return current();
    },
    get client() {
      return current().client;
    },
    async newTab(opts: NewTabOptions = {}) {
      const client = current().client;
      let userContext: string | undefined;
      if (opts.isolated) {
        userContext = (await client.send("browser.createUserContext", {})).userContext;
        testUserContexts.add(userContext);
      }
      const context = await createTab(client, { userContext });
      testTabs.add(context);
      return context;
    },
  };
}

/**
 * Same as useFirefox. Biome's React rule flags `use*` calls at module level, and vitest files call
 * this at module level by design; this name needs no lint suppression.
 */
export const setupFirefox = useFirefox;
