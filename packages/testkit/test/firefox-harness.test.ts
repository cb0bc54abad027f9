import { evaluate, navigate } from "@webbrain/bidi";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type FixtureServer, startFixtureServer, useFirefox, waitFor } from "../src/index.js";

const firefox = useFirefox();
let fixtures: FixtureServer;
beforeAll(async () => {
  fixtures = await startFixtureServer();
});
afterAll(async () => {
  await fixtures?.close();
});

let tabFromFirstTest = "";
const isolatedUserContexts: string[] = [];

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

  it("isolates storage between tabs opened with isolated: true", async () => {
    const url = fixtures.url("/harness/focus.html");
    const first = await firefox.newTab({ isolated: true });
    await navigate(firefox.client, first, url);
    await evaluate(
      firefox.client,
      first,
      "localStorage.setItem('who', 'first'); document.cookie = 'who=first'",
    );
    const second = await firefox.newTab({ isolated: true });
    await navigate(firefox.client, second, url);
    expect(await evaluate(firefox.client, second, "localStorage.getItem('who')")).toBeNull();
    expect(await evaluate(firefox.client, second, "document.cookie")).toBe("");
    // A plain tab shares the default user context; the isolated ones did not leak into it either.
    const plain = await firefox.newTab();
    await navigate(firefox.client, plain, url);
    expect(await evaluate(firefox.client, plain, "localStorage.getItem('who')")).toBeNull();
    // Sanity: the first tab itself still sees what it wrote.
    expect(await evaluate(firefox.client, first, "localStorage.getItem('who')")).toBe("first");
    const tree = await firefox.client.send("browsingContext.getTree", { maxDepth: 0 });
    for (const tab of [first, second]) {
      const userContext = tree.contexts.find((c) => c.context === tab)?.userContext;
      expect(userContext).toBeDefined();
      expect(userContext).not.toBe("default");
      isolatedUserContexts.push(userContext ?? "");
    }
  });

  it("closed the previous test's tab", async () => {
    const tree = await firefox.client.send("browsingContext.getTree", { maxDepth: 0 });
    const ids = tree.contexts.map((c) => c.context);
    expect(tabFromFirstTest).not.toBe("");
    expect(ids).not.toContain(tabFromFirstTest);
    expect(ids.length).toBeGreaterThanOrEqual(1); // the initial tab stays
    const { userContexts } = await firefox.client.send("browser.getUserContexts", {});
    expect(isolatedUserContexts).toHaveLength(2);
    for (const id of isolatedUserContexts) {
      expect(userContexts.map((u) => u.userContext)).not.toContain(id);
    }
  });
});
