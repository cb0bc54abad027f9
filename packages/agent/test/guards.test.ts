// Every guard firing and resetting: loop detector, duplicate-submit, blockedDone, /allow-api,
// permission gate. Driven by a scripted model over HTTP where the guard's effect on the model
// matters, and directly where the rule itself is the point (expiry, thresholds).
import { lastToolResultText, toolResultTexts } from "@webbrain/testkit";
import { afterEach, describe, expect, it } from "vitest";
import {
  ALWAYS_GRANTS_KEY,
  BLOCKED_DONE_MAX,
  BlockedDone,
  type CompletionProbe,
  DuplicateSubmitGuard,
  LoopDetector,
  NAV_NUDGE_AT,
  NAV_STOP_AT,
  type PermissionRequest,
  REPEAT_NUDGE_AT,
  REPEAT_STOP_AT,
  SUBMIT_WINDOW_MS,
  unfinishedWork,
} from "../src/index.js";
import { type Harness, harness, SHOP_URL } from "./harness.js";
import { line } from "./scripted-tree.js";

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

const click = (ref: number, extra: Record<string, unknown> = {}) => ({
  toolCalls: [{ name: "click_ax", arguments: { ref_id: ref, ...extra } }],
});
const tree = { toolCalls: [{ name: "get_accessibility_tree", arguments: {} }] };

describe("loop detector", () => {
  it("nudges at the 3rd identical action on an unchanged page and stops at the 5th", async () => {
    h = await harness({ script: [tree, click(4), click(4), click(4), click(4), click(4)] });
    const result = await h.agent.processMessage("1", "add to cart", {
      onEvent: (event) => h?.events.push(event),
    });
    expect(result.status).toBe("stopped");
    expect(result.error?.kind).toBe("loop_stopped");
    expect(h.browser.named("click_ax")).toHaveLength(REPEAT_STOP_AT - 1);
    const results = toolResultTexts(h.llm.requests[REPEAT_NUDGE_AT + 1] as never);
    expect(results.at(-1)).toContain("Loop warning");
    // The same facts as data, for a UI that words them in the user's language.
    expect(h.events.find((event) => event.type === "nudge")).toMatchObject({
      detector: "repeat",
      subject: "click_ax",
      count: REPEAT_NUDGE_AT,
    });
    expect(result.error?.loop).toEqual({ detector: "repeat", subject: "click_ax", count: REPEAT_STOP_AT });
  });

  it("does not count observations, and a changed page resets the count (looking is not looping)", async () => {
    let count = 0;
    const script = [];
    for (let index = 0; index < 8; index++) script.push(tree, click(4));
    script.push({ toolCalls: [{ name: "done", arguments: { summary: "Added 8 items; cart shows 8." } }] });
    h = await harness({
      script,
      pages: {
        [SHOP_URL]: {
          title: "Shop",
          get tree() {
            return [
              line(0, "button", "Add to cart", { ref: 4 }),
              line(0, "text", `Cart: ${count}`, { ref: 5 }),
            ];
          },
          onAction: () => {
            count++;
            return { success: true };
          },
        },
      },
    });
    const result = await h.agent.processMessage("1", "add 8 items");
    expect(result.status).toBe("done");
    expect(count).toBe(8);
    for (const request of h.llm.requests)
      expect(toolResultTexts(request).join("\n")).not.toContain("Loop warning");
  });

  it("an action the page reports as changing something differently each time is not a loop; flip-flopping is", async () => {
    let count = 0;
    const script = Array.from({ length: 7 }, () => click(4));
    h = await harness({
      script: [...script, { text: "stepped" }],
      pages: {
        [SHOP_URL]: {
          title: "Stepper",
          tree: [],
          onAction: () => ({
            success: true,
            effect: { changed: true, changes: [`value is now ${++count}`] },
          }),
        },
      },
    });
    expect((await h.agent.processMessage("1", "step 7 times")).status).toBe("answered");
    expect(count).toBe(7);
    await h.close();

    let open = false;
    h = await harness({
      script: Array.from({ length: 12 }, () => click(4)),
      pages: {
        [SHOP_URL]: {
          title: "Toggle",
          tree: [],
          onAction: () => {
            open = !open;
            return {
              success: true,
              effect: { changed: true, changes: [open ? "now expanded" : "now collapsed"] },
            };
          },
        },
      },
    });
    const flipped = await h.agent.processMessage("1", "toggle");
    expect(flipped.error?.kind).toBe("loop_stopped");
  });

  it("coordinate clicks near one spot and navigation ping-pong are detected; reset forgets", () => {
    const detector = new LoopDetector();
    detector.observe("https://a/", "tree");
    expect(detector.recordAction("click", { x: 100, y: 100 }).kind).toBe("ok");
    expect(detector.recordAction("click", { x: 104, y: 98 }).kind).toBe("ok");
    const nudge = detector.recordAction("click", { x: 101, y: 103 });
    expect(nudge).toMatchObject({ kind: "nudge", detector: "coordinate" });
    detector.recordAction("click", { x: 99, y: 99 });
    expect(detector.recordAction("click", { x: 100, y: 101 })).toMatchObject({
      kind: "stop",
      detector: "coordinate",
    });
    detector.reset();
    expect(detector.recordAction("click", { x: 100, y: 100 }).kind).toBe("ok");

    const nav = new LoopDetector();
    const verdicts = [];
    for (let index = 0; index < NAV_STOP_AT * 2; index++)
      verdicts.push(nav.recordNavigation(index % 2 ? "https://b/" : "https://a/#x"));
    expect(verdicts.findIndex((verdict) => verdict.kind === "nudge")).toBe((NAV_NUDGE_AT - 1) * 2);
    expect(verdicts.at(-2)?.kind).toBe("stop");
  });
});

describe("duplicate-submit guard", () => {
  const ORDER_TREE = [line(0, "button", "Place order", { ref: 7 }), line(0, "textbox", "Card", { ref: 8 })];

  it("blocks a second click on a submit-like ref, lets _allowResubmit through and re-arms", async () => {
    h = await harness({
      script: [tree, click(7), click(7), click(7, { _allowResubmit: true }), click(7), { text: "stopped" }],
      pages: { [SHOP_URL]: { title: "Checkout", tree: ORDER_TREE } },
    });
    await h.agent.processMessage("1", "order it");
    expect(h.browser.named("click_ax")).toHaveLength(2);
    const results = toolResultTexts(h.llm.requests[5] as never);
    expect(results[2]).toMatch(
      /Blocked duplicate submit: [\s\S]*<untrusted [^>]*>\n"Place order"\n<\/untrusted>/,
    );
    expect(results[3]).toContain("[click_ax ok]");
    expect(results[4]).toContain("Blocked duplicate submit");
  });

  it("forgets a submit the page rejected on validation", async () => {
    let attempts = 0;
    h = await harness({
      script: [tree, click(7), click(7), { text: "ordered" }],
      pages: {
        [SHOP_URL]: {
          title: "Checkout",
          tree: ORDER_TREE,
          onAction: () =>
            ++attempts === 1
              ? { success: true, invalid_fields: [{ ref_id: 8, role: "textbox", name: "Card" }] }
              : { success: true },
        },
      },
    });
    await h.agent.processMessage("1", "order it");
    expect(h.browser.named("click_ax")).toHaveLength(2);
  });

  it("forgets a submit the permission gate denied: nothing was clicked", async () => {
    const answers = ["deny", "once"] as const;
    let asked = 0;
    h = await harness({
      script: [tree, click(7), click(7), { text: "ordered" }],
      pages: { [SHOP_URL]: { title: "Checkout", tree: ORDER_TREE } },
      agent: { approver: async () => answers[asked++] ?? "deny" },
    });
    await h.agent.processMessage("1", "order it");
    expect(h.browser.named("click_ax")).toHaveLength(1);
    const results = toolResultTexts(h.llm.requests[3] as never);
    expect(results[1]).toContain("The user denied interact");
    expect(results[2]).toContain("[click_ax ok]");
  });

  it("resets on navigation and on expiry; ignores ordinary labels", () => {
    let now = 1_000_000;
    const guard = new DuplicateSubmitGuard(() => now);
    expect(guard.check("1", "Send", "https://m/", false).allowed).toBe(true);
    expect(guard.check("1", "  send ", "https://m/#top", false).allowed).toBe(false);
    expect(guard.check("2", "Send", "https://m/", false).allowed).toBe(true); // another tab
    now += SUBMIT_WINDOW_MS;
    expect(guard.check("1", "Send", "https://m/", false).allowed).toBe(true); // expired
    guard.navigated("1");
    expect(guard.check("1", "Send", "https://m/", false).allowed).toBe(true);
    expect(guard.check("1", "Next page", "https://m/", false).allowed).toBe(true);
    expect(guard.check("1", "Next page", "https://m/", false).allowed).toBe(true);
  });
});

/** probe_completion's details: a finished page, but for `found`. */
function probeOf(found: Partial<CompletionProbe>): CompletionProbe {
  return { url: SHOP_URL, dialogs: [], forms: [], messages: [], busy: false, open_dialog: false, ...found };
}

const CREATE_TAG_DIALOG = {
  ref_id: 3,
  role: "dialog",
  name: "Create tag",
  label: 'dialog "Create tag"',
  modal: true,
};

describe("blockedDone", () => {
  it("refuses done while a dialog is open, at most twice per tab, then lets it through with a note; clearing resets", async () => {
    const done = { toolCalls: [{ name: "done", arguments: { summary: "Created the tag v1." } }] };
    h = await harness({
      script: [done, done, done, done, done, done, done],
      pages: {
        [SHOP_URL]: {
          title: "Tags",
          tree: [],
          probe: {
            dialogs: [CREATE_TAG_DIALOG],
            forms: [{ label: 'form "Search"', fields: 1, filled: 1, invalid: 0, changed: 1 }],
          },
        },
      },
    });
    const result = await h.agent.processMessage("1", "create tag v1");
    expect(result.status).toBe("done");
    expect(result.text).toContain("Unverified: the page still showed open dialog");
    expect(h.llm.requests).toHaveLength(BLOCKED_DONE_MAX + 1);
    const refusals = toolResultTexts(h.llm.requests[BLOCKED_DONE_MAX] as never);
    expect(refusals[0]).toContain("done refused (blockedDone 1/2)");
    expect(refusals[0]).toContain('"blockedDone":true');

    // Same tab, same conversation: the budget is spent, done goes through at once.
    expect((await h.agent.processMessage("1", "again")).status).toBe("done");
    expect(h.llm.requests).toHaveLength(BLOCKED_DONE_MAX + 2);
    // Cleared with the conversation: blocked again.
    await h.agent.clearConversation("1");
    expect((await h.agent.processMessage("1", "once more")).text).toContain("Unverified");
    expect(lastToolResultText(h.llm.requests[BLOCKED_DONE_MAX + 3] as never)).toContain(
      "done refused (blockedDone 1/2)",
    );
  });

  it("judges the probe: invalid forms and error alerts block, a filled search form or a success toast does not", () => {
    expect(
      unfinishedWork(
        probeOf({
          forms: [{ label: "Search", fields: 1, filled: 1, invalid: 0, changed: 1 }],
          messages: [{ role: "status", text: "Saved" }],
        }),
      ),
    ).toBeUndefined();
    expect(
      unfinishedWork(probeOf({ forms: [{ label: "Signup", fields: 3, filled: 2, invalid: 1, changed: 2 }] })),
    ).toContain("form with invalid fields: Signup");
    expect(
      unfinishedWork(probeOf({ messages: [{ role: "alert", text: "Card number is invalid" }] })),
    ).toContain("error message: Card number is invalid");
  });

  it("does not count an untouched empty form (a fresh 'add another' form after a save) as unfinished", () => {
    const fresh = { label: "New contact", fields: 3, filled: 1, invalid: 2, changed: 0 };
    expect(unfinishedWork(probeOf({ forms: [fresh] }))).toBeUndefined();
    expect(unfinishedWork(probeOf({ forms: [{ ...fresh, changed: 1 }] }))).toContain(
      "form with invalid fields: New contact",
    );
  });

  it("lets done through when the probe's answer does not fit its contract (it cannot tell), and blocks on one that does", () => {
    const guard = new BlockedDone();
    const summary = "Created the tag v1.";
    // A port's fake, or a page layer of another version, answering something else.
    expect(guard.decide("1", summary, { success: true, text: "Example page text" })).toEqual({
      kind: "allow",
    });
    expect(guard.decide("1", summary, { success: true, dialogs: "open" })).toEqual({ kind: "allow" });
    expect(guard.decide("1", summary, undefined)).toEqual({ kind: "allow" });
    const open = { success: true, ...probeOf({ dialogs: [CREATE_TAG_DIALOG] }) };
    expect(guard.decide("1", summary, open).kind).toBe("block");
  });

  it("does not block a summary that admits failure", async () => {
    h = await harness({
      script: [
        { toolCalls: [{ name: "done", arguments: { summary: "Could not create the tag: name taken." } }] },
      ],
      pages: {
        [SHOP_URL]: { title: "Tags", tree: [], probe: { dialogs: [CREATE_TAG_DIALOG] } },
      },
    });
    expect((await h.agent.processMessage("1", "create tag")).status).toBe("done");
  });
});

describe("/allow-api", () => {
  it("refuses POST via fetch_url until the user allows API mutations; GET always works", async () => {
    const post = {
      toolCalls: [
        { name: "fetch_url", arguments: { url: "https://api.example/items", method: "POST", body: "{}" } },
      ],
    };
    h = await harness({
      script: [
        { toolCalls: [{ name: "fetch_url", arguments: { url: "https://api.example/items" } }] },
        post,
        (request) => ({ text: lastToolResultText(request) }),
        post,
        { text: "posted" },
      ],
    });
    const first = await h.agent.processMessage("1", "create an item via the API");
    expect(first.text).toContain("Refused POST: the user has not typed /allow-api");
    expect(h.browser.named("fetchUrl").map((call) => (call.params as { method: string }).method)).toEqual([
      "GET",
    ]);

    const toggled = await h.agent.processMessage("1", "/allow-api");
    expect(toggled.text).toContain("are allowed");
    expect(toggled.allowApi).toBe(true); // as data too, for a UI that words it itself
    await h.agent.processMessage("1", "now do it");
    expect(h.browser.named("fetchUrl").map((call) => (call.params as { method: string }).method)).toEqual([
      "GET",
      "POST",
    ]);
    const stored = (await h.store.get("agentConv:1")) as { allowApi: boolean };
    expect(stored.allowApi).toBe(true);
  });

  it("never allows a mutating fetch in Ask mode, even after /allow-api", async () => {
    h = await harness({
      script: [
        { toolCalls: [{ name: "fetch_url", arguments: { url: "https://api.example/x", method: "DELETE" } }] },
        (request) => ({ text: lastToolResultText(request) }),
      ],
    });
    await h.agent.processMessage("1", "/allow-api");
    const result = await h.agent.processMessage("1", "delete it", { mode: "ask" });
    expect(result.text).toContain("Refused DELETE: Ask mode is read-only");
    expect(h.browser.named("fetchUrl")).toHaveLength(0);
  });
});

describe("permission gate", () => {
  it("asks per capability x origin; 'always' persists in the Store, 'deny' refuses the call", async () => {
    const asked: PermissionRequest[] = [];
    const answers = ["always", "deny"] as const;
    const approver = async (request: PermissionRequest) => {
      asked.push(request);
      return answers[asked.length - 1] ?? "deny";
    };
    h = await harness({
      script: [
        tree,
        click(4),
        click(5),
        { toolCalls: [{ name: "navigate", arguments: { url: "https://other.example/x" } }] },
        (request) => ({ text: lastToolResultText(request) }),
      ],
      agent: { approver },
    });
    const result = await h.agent.processMessage("1", "shop");
    expect(asked.map((request) => `${request.capability} ${request.origin}`)).toEqual([
      "interact https://shop.example",
      "navigate https://other.example",
    ]);
    expect(h.browser.named("click_ax")).toHaveLength(2);
    expect(h.browser.named("navigate")).toHaveLength(0);
    expect(result.text).toContain("The user denied navigate on https://other.example");
    expect(await h.store.get(ALWAYS_GRANTS_KEY)).toEqual({ "interact https://shop.example": true });

    // A new agent on the same Store does not ask again for the granted pair.
    await h.llm.close();
    h = await harness({ script: [click(4), { text: "ok" }], store: h.store, agent: { approver } });
    await h.agent.processMessage("1", "click again");
    expect(asked).toHaveLength(2);
    expect(h.browser.named("click_ax")).toHaveLength(1);
  });

  it("without an approver (runner default) allows everything", async () => {
    h = await harness({ script: [click(4), { text: "ok" }] });
    await h.agent.processMessage("1", "click");
    expect(h.browser.named("click_ax")).toHaveLength(1);
  });
});

describe("iframe_type then verify_form", () => {
  it("refuses done until the typed frame is checked with verify_form of the same urlFilter", async () => {
    const done = { toolCalls: [{ name: "done", arguments: { summary: "Paid the invoice." } }] };
    h = await harness({
      script: [
        {
          toolCalls: [
            { name: "iframe_type", arguments: { urlFilter: "pay.example", selector: "#card", text: "4242" } },
          ],
        },
        done,
        { toolCalls: [{ name: "verify_form", arguments: { urlFilter: "pay.example" } }] },
        done,
      ],
    });
    const result = await h.agent.processMessage("1", "pay");
    expect(result.status).toBe("done");
    const refused = toolResultTexts(h.llm.requests[2] as never).at(-1);
    expect(refused).toContain(
      'done refused: you typed into a frame with iframe_type (urlFilter "pay.example")',
    );
    expect(h.browser.named("verify_form")).toHaveLength(1);
  });
});

describe("site adapters", () => {
  it("injects one site's guidance in the first message and again only when navigation reaches another adapted site", async () => {
    const nav = (url: string) => ({ toolCalls: [{ name: "navigate", arguments: { url } }] });
    h = await harness({
      startUrl: "https://github.com/org/repo",
      pages: {
        "https://github.com/org/repo": { title: "repo", tree: [] },
        "https://dashboard.stripe.com/products": { title: "Products", tree: [] },
        "https://dashboard.stripe.com/prices": { title: "Prices", tree: [] },
      },
      script: [
        nav("https://dashboard.stripe.com/products"),
        nav("https://dashboard.stripe.com/prices"),
        { text: "ok" },
      ],
    });
    await h.agent.processMessage("1", "go to stripe");
    const last = h.llm.requests[2];
    if (!last) throw new Error("missing request");
    const first = JSON.stringify(last.body.messages).match(/Site guidance: GitHub/g);
    expect(first).toHaveLength(1);
    const results = toolResultTexts(last);
    expect(results[0]).toContain("Site guidance: Stripe dashboard");
    expect(results[1]).not.toContain("Site guidance");
  });
});
