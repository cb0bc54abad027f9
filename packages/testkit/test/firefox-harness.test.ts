import { evaluate, navigate } from "@webbrain/bidi";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type FixtureServer, startFixtureServer, useFirefox, waitFor } from "../src/index.js";

// biome-ignore lint/correctness/useHookAtTopLevel: a vitest hook registrar, not a React hook.
const firefox = useFirefox();
let fixtures: FixtureServer;
beforeAll(async () => {
  fixtures = await startFixtureServer();
});
afterAll(async () => {
  await fixtures?.close();
});

let tabFromFirstTest = "";

describe("useFirefox", () => {
  it("gives a running browser and a focused new tab", async () => {
    expect(firefox.browser.browserName).toBe("firefox");
    const tab = await firefox.newTab();
    tabFromFirstTest = tab;
    await navigate(firefox.client, tab, fixtures.url("/harness/focus.html"));
    expect(await evaluate(firefox.client, tab, "document.title")).toBe("Focus probe");
    expect(await evaluate(firefox.client, tab, "document.hasFocus()")).toBe(true);
    await evaluate(firefox.client, tab, "document.getElementById('name').focus()");
    const events = await waitFor(() =>
      evaluate<boolean[]>(firefox.client, tab, "window.focusEvents.length ? window.focusEvents : null"),
    );
    expect(events).toHaveLength(1);
  });

  it("closed the previous test's tab", async () => {
    const tree = await firefox.client.send("browsingContext.getTree", { maxDepth: 0 });
    const ids = tree.contexts.map((c) => c.context);
    expect(tabFromFirstTest).not.toBe("");
    expect(ids).not.toContain(tabFromFirstTest);
    expect(ids.length).toBeGreaterThanOrEqual(1); // the initial tab stays
  });
});
