/**
 * Attack (issue 20, point 5): a model that repeats page text answers with Markdown and HTML that
 * loads a URL by itself (an image, SVG `<image>`/`<feImage>`/`<use>`, CSS `url()`, `srcset`, a
 * stylesheet, a frame, a refresh...), so the sidebar would send the attacker's server whatever
 * the URL carries, with no click. Each vector points at the fixture server under its own path.
 *
 * Shown in real Firefox: the same HTML in an ordinary web page does fetch those URLs (so the
 * vectors are live), while the real sidebar, given that answer by a scripted model over HTTP,
 * renders the Markdown (bold, list, table, code, a link) and fetches none of them. The sidebar's
 * Content-Security-Policy, the second wall, blocks remote loads that bypass the sanitizer.
 */
import { evaluate, navigate } from "@webbrain/bidi";
import {
  type FixtureServer,
  type ScriptedLlm,
  setupFirefox,
  startFixtureServer,
  startScriptedLlm,
  waitFor,
} from "@webbrain/testkit";
import { marked } from "marked";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  ADDON_PREFS,
  buildAddon,
  click,
  count,
  fill,
  firefoxTabId,
  installAndOpenSettings,
  openAddonPage,
  pressEnter,
  screenshot,
  scriptedSettings,
  storeSettings,
  text,
  until,
  waitForText,
} from "./addon-harness.js";

const LEAK_PREFIX = "/leak/";

interface Vector {
  name: string;
  /** The hostile Markdown/HTML, given the vector's unique URL. */
  markup(url: string): string;
  /** Firefox fetches it unprompted in an ordinary page (the live control proves these). */
  loadsByItself: boolean;
}

/** Every way model text could make the sidebar fetch, as the issue lists them. */
const VECTORS: Vector[] = [
  { name: "md-image", markup: (u) => `![chart](${u})`, loadsByItself: true },
  { name: "md-image-ref", markup: (u) => `![chart][pic]\n\n[pic]: ${u}`, loadsByItself: true },
  { name: "img", markup: (u) => `<img src="${u}" alt="x">`, loadsByItself: true },
  { name: "image-alias", markup: (u) => `<image src="${u}">`, loadsByItself: true },
  { name: "img-srcset", markup: (u) => `<img srcset="${u} 1x" alt="x">`, loadsByItself: true },
  {
    name: "picture-source",
    markup: (u) => `<picture><source srcset="${u}"><img alt="x"></picture>`,
    loadsByItself: true,
  },
  {
    name: "svg-image",
    markup: (u) => `<svg width="20" height="20"><image href="${u}" width="20" height="20"/></svg>`,
    loadsByItself: true,
  },
  {
    name: "svg-image-xlink",
    markup: (u) =>
      `<svg xmlns:xlink="http://www.w3.org/1999/xlink" width="20" height="20"><image xlink:href="${u}" width="20" height="20"/></svg>`,
    loadsByItself: true,
  },
  {
    name: "svg-feimage",
    markup: (u) =>
      `<svg width="20" height="20"><filter id="leakf"><feImage href="${u}"/></filter><rect width="20" height="20" filter="url(#leakf)"/></svg>`,
    loadsByItself: true,
  },
  {
    name: "svg-use",
    markup: (u) => `<svg width="20" height="20"><use href="${u}#shape"/></svg>`,
    loadsByItself: true,
  },
  {
    name: "svg-a",
    markup: (u) => `<svg width="60" height="20"><a href="${u}"><text y="15">svg link</text></a></svg>`,
    loadsByItself: false,
  },
  {
    name: "style-attr",
    markup: (u) => `<span style="display:inline-block;width:9px;height:9px;background:url(${u})">s</span>`,
    loadsByItself: true,
  },
  {
    name: "style-image-set",
    markup: (u) => `<div style="width:9px;height:9px;background-image:image-set(url(${u}) 1x)">s</div>`,
    loadsByItself: true,
  },
  {
    name: "style-tag",
    markup: (u) => `<style>.leak-bg{background:url(${u})}</style><p class="leak-bg">styled</p>`,
    loadsByItself: true,
  },
  { name: "style-import", markup: (u) => `<style>@import url(${u});</style>`, loadsByItself: true },
  { name: "link-stylesheet", markup: (u) => `<link rel="stylesheet" href="${u}">`, loadsByItself: true },
  { name: "link-preload", markup: (u) => `<link rel="preload" as="image" href="${u}">`, loadsByItself: true },
  {
    name: "object",
    markup: (u) => `<object data="${u}" width="20" height="20"></object>`,
    loadsByItself: true,
  },
  { name: "embed", markup: (u) => `<embed src="${u}" width="20" height="20">`, loadsByItself: true },
  {
    name: "iframe",
    markup: (u) => `<iframe src="${u}" width="20" height="20"></iframe>`,
    loadsByItself: true,
  },
  {
    name: "video-poster",
    markup: (u) => `<video poster="${u}" width="20" height="20"></video>`,
    loadsByItself: true,
  },
  {
    name: "table-background",
    markup: (u) => `<table background="${u}"><tr><td>cell</td></tr></table>`,
    loadsByItself: true,
  },
  { name: "input-image", markup: (u) => `<input type="image" src="${u}" alt="go">`, loadsByItself: true },
  {
    name: "base-relative",
    markup: (u) => `<base href="${u}/">\n\n<a href="page">relative link</a>`,
    loadsByItself: false,
  },
  {
    name: "meta-refresh",
    markup: (u) => `<meta http-equiv="refresh" content="0;url=${u}">`,
    // It would navigate the control page away; the sidebar test still watches for it.
    loadsByItself: false,
  },
  {
    name: "form",
    markup: (u) => `<form action="${u}" method="get"><button>Send</button></form>`,
    loadsByItself: false,
  },
  {
    name: "a-ping",
    markup: (u) => `<a href="https://example.org/pinged" ping="${u}">pinged link</a>`,
    loadsByItself: false,
  },
  {
    name: "math-href",
    markup: (u) => `<math><mtext href="${u}">math</mtext></math>`,
    loadsByItself: false,
  },
];

/** Markdown the sidebar must still render. */
const NORMAL_MARKDOWN = [
  "## Findings",
  "",
  "The page is about **Pharos** and *Alexandria*.",
  "",
  "- first point",
  "- second point",
  "",
  "| Fact | Value |",
  "| --- | --- |",
  "| Height | about 100 m |",
  "",
  "```js",
  "console.log('pharos');",
  "```",
  "",
  "Read [the article](https://example.org/pharos) or write to [us](mailto:team@example.org).",
].join("\n");

let addon: Awaited<ReturnType<typeof buildAddon>> | undefined;
let fixtures: FixtureServer | undefined;
const llms: ScriptedLlm[] = [];

beforeAll(async () => {
  addon = await buildAddon();
  fixtures = await startFixtureServer({
    routes: {
      // The live control: each vector as marked alone renders it, in an ordinary web page.
      "/control.html": (req, res) => {
        const run = new URL(req.url ?? "/", "http://x").searchParams.get("run") ?? "0";
        const body = VECTORS.filter((v) => v.loadsByItself)
          .map((v) => marked.parse(v.markup(leakUrl(`control-${run}`, v.name)), { async: false }))
          .join("\n");
        res
          .writeHead(200, { "content-type": "text/html; charset=utf-8" })
          .end(`<!doctype html><title>control</title><body>${body}</body>`);
      },
    },
  });
});
afterAll(async () => {
  await Promise.all(llms.map((llm) => llm.close()));
  await fixtures?.close();
  await addon?.remove();
});

const firefox = setupFirefox({ prefs: ADDON_PREFS });
let settingsPage = "";

/** The unique fixture URL for one vector in one scenario ("sidebar", "control-1", ...). */
function leakUrl(scenario: string, vector: string): string {
  return fixtures!.url(`${LEAK_PREFIX}${scenario}/${vector}`);
}

function leaksOf(scenario: string): string[] {
  return fixtures!.requests
    .map((request) => request.url)
    .filter((url) => url.startsWith(`${LEAK_PREFIX}${scenario}/`));
}

function hostileAnswer(scenario: string): string {
  const vectors = VECTORS.map((v) => `${v.markup(leakUrl(scenario, v.name))}\n\n`).join("");
  return `${NORMAL_MARKDOWN}\n\n${vectors}End of answer.`;
}

/** Resolves after the sidebar painted twice more: loads the DOM started have been dispatched. */
async function settled(context: string): Promise<void> {
  await evaluate(
    firefox.client,
    context,
    "new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(() => done(true))))",
  );
}

/** Records the sidebar's CSP violations from now on, as `window.cspBlocked` (blocked URIs). */
async function watchCsp(context: string): Promise<void> {
  await evaluate(
    firefox.client,
    context,
    `(() => {
      window.cspBlocked = [];
      document.addEventListener("securitypolicyviolation", (e) => window.cspBlocked.push(e.blockedURI));
      return true;
    })()`,
  );
}

describe("sidebar Markdown loads nothing", () => {
  beforeAll(async () => {
    settingsPage = await installAndOpenSettings(firefox.client, addon!.dir);
  });

  it("the vectors are live: an ordinary page fetches each one that loads by itself", async () => {
    const context = await firefox.newTab();
    await navigate(firefox.client, context, fixtures!.url("/control.html?run=1"));
    const expected = VECTORS.filter((v) => v.loadsByItself).map((v) => v.name);
    const missing = () => {
      const seen = new Set(leaksOf("control-1").map((url) => url.split(/[/?#]/)[3]));
      return expected.filter((name) => !seen.has(name));
    };
    await waitFor(() => missing().length === 0, { timeoutMs: 20_000 }).catch(() => {
      throw new Error(`the control page never fetched: ${missing().join(", ")}`);
    });
  });

  it("renders a hostile answer's Markdown in the real sidebar and fetches none of its URLs", async () => {
    const llm = await startScriptedLlm({
      dialect: "openai-chat",
      script: [{ text: hostileAnswer("sidebar") }],
    });
    llms.push(llm);
    await storeSettings(firefox.client, settingsPage, scriptedSettings(llm.baseUrl));
    const page = await firefox.newTab();
    const pageUrl = fixtures!.url("/extension/article.html");
    await navigate(firefox.client, page, pageUrl);
    const tabId = await firefoxTabId(firefox.client, settingsPage, pageUrl);
    const sidebar = await openAddonPage(firefox.client, settingsPage, `sidebar.html?tab=${tabId}`);
    await waitForText(firefox.client, sidebar, "#tab-title", "Lighthouse of Alexandria");
    await watchCsp(sidebar);

    await click(firefox.client, sidebar, 'input[name="mode"][value="ask"] + span');
    await fill(firefox.client, sidebar, "#input", "What does the page say?");
    await pressEnter(firefox.client, sidebar);
    await waitForText(firefox.client, sidebar, "#transcript .msg.assistant", "End of answer.");
    await settled(sidebar);
    // The server saw none of the vectors, and the sanitizer left the CSP nothing to block.
    expect(leaksOf("sidebar")).toEqual([]);
    expect(await evaluate<string[]>(firefox.client, sidebar, "window.cspBlocked")).toEqual([]);

    const answer = "#transcript .msg.assistant";
    // Normal Markdown still renders.
    expect(await text(firefox.client, sidebar, `${answer} h2`)).toBe("Findings");
    expect(await text(firefox.client, sidebar, `${answer} strong`)).toBe("Pharos");
    expect(await count(firefox.client, sidebar, `${answer} ul li`)).toBe(2);
    expect(await text(firefox.client, sidebar, `${answer} table td`)).toContain("about 100 m");
    expect(await text(firefox.client, sidebar, `${answer} pre code`)).toContain("console.log('pharos');");
    const links = await evaluate<{ href: string; target: string; rel: string; text: string }[]>(
      firefox.client,
      sidebar,
      `[...document.querySelectorAll(${JSON.stringify(`${answer} a`)})].map((a) => ({
        href: a.getAttribute("href") ?? "", target: a.target, rel: a.rel, text: a.textContent }))`,
    );
    const withHref = links.filter((link) => link.href !== "");
    expect(withHref.map((link) => link.href)).toEqual([
      "https://example.org/pharos",
      "mailto:team@example.org",
      "https://example.org/pinged",
    ]);
    for (const link of links) {
      expect(link.target).toBe("_blank");
      expect(link.rel).toBe("noopener noreferrer");
    }
    // The relative link under an injected <base> lost its href; its text stays.
    expect(links.find((link) => link.text === "relative link")?.href).toBe("");

    // Nothing that can fetch is left in the answer, whatever the tag or attribute.
    const fetchers = await evaluate<string[]>(
      firefox.client,
      sidebar,
      `[...document.querySelectorAll(${JSON.stringify(answer)} + " *")]
        .filter((el) => el.namespaceURI !== "http://www.w3.org/1999/xhtml" ||
          /^(img|picture|source|image|svg|math|style|link|object|embed|iframe|video|audio|meta|base|form|input|button)$/i.test(el.localName) ||
          [...el.attributes].some((a) => /^(src|srcset|poster|background|data|ping|style|action|xlink:href)$/i.test(a.name)))
        .filter((el) => !el.classList.contains("copy-code"))
        .map((el) => el.outerHTML.slice(0, 120))`,
    );
    expect(fetchers).toEqual([]);

    await screenshot(firefox.client, sidebar, "security-sidebar-markdown");
  });

  it("the sidebar's CSP blocks remote loads that bypass the sanitizer", async () => {
    const page = await firefox.newTab();
    const pageUrl = fixtures!.url("/extension/article.html?csp=1");
    await navigate(firefox.client, page, pageUrl);
    const tabId = await firefoxTabId(firefox.client, settingsPage, pageUrl);
    const sidebar = await openAddonPage(firefox.client, settingsPage, `sidebar.html?tab=${tabId}`);
    await watchCsp(sidebar);
    const urls = {
      img: leakUrl("csp", "img"),
      svg: leakUrl("csp", "svg-image"),
      style: leakUrl("csp", "style-tag"),
      fetch: leakUrl("csp", "fetch"),
    };
    // Straight into the DOM, as a sanitizer bug would let them through.
    await evaluate(
      firefox.client,
      sidebar,
      `(() => {
        const urls = ${JSON.stringify(urls)};
        const img = document.createElement("img");
        img.src = urls.img;
        document.body.append(img);
        const svg = document.createElementNS("http://www.w3.org/2000/svg", "svg");
        const image = document.createElementNS("http://www.w3.org/2000/svg", "image");
        image.setAttribute("href", urls.svg);
        image.setAttribute("width", "10");
        image.setAttribute("height", "10");
        svg.append(image);
        document.body.append(svg);
        const style = document.createElement("style");
        style.textContent = "body { background: url(" + urls.style + ") }";
        document.head.append(style);
        fetch(urls.fetch).catch(() => undefined);
        return true;
      })()`,
    );
    // Each was refused by the policy (a violation event each), and none reached the server.
    const blocked = await until(
      async () => {
        const seen = await evaluate<string[]>(firefox.client, sidebar, "window.cspBlocked");
        return [urls.img, urls.svg, urls.fetch].every((u) => seen.includes(u)) && seen.includes("inline")
          ? seen
          : undefined;
      },
      { timeoutMs: 15_000, message: "the sidebar's CSP did not report blocking every injected load" },
    );
    expect(blocked).toContain(urls.img);
    expect(leaksOf("csp")).toEqual([]);
  });
});
