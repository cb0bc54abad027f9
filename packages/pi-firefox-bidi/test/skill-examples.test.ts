/**
 * Every worked batch in skills/firefox-bidi/SKILL.md runs as written against
 * real headless Firefox through the batch engine, with only the placeholders
 * replaced (CTX by a tab the test creates, example.com by a local fixture), so
 * the skill cannot teach a frame that Firefox 153 refuses.
 */
import { readFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type FirefoxBrowser, launchFirefox } from "@webbrain/bidi";
import {
  type BatchPayload,
  BatchSession,
  clientTransport,
  nodeSpoolFs,
  SpoolStore,
} from "@webbrain/bidi/batch";
import { type FixtureServer, startFixtureServer } from "@webbrain/testkit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ToolParams, toolParameters } from "../src/tool.js";

const SKILL = readFileSync(new URL("../skills/firefox-bidi/SKILL.md", import.meta.url), "utf8");
const WORKED = SKILL.slice(SKILL.indexOf("## Worked batches"), SKILL.indexOf("## Launch policy"));
const examples = [...WORKED.matchAll(/```json\n([\s\S]*?)```/g)].map((match) => match[1]!);

const SHOP = `<!doctype html><title>Shop</title>
<button onclick="document.querySelector('#cart-count').textContent = String(Number(document.querySelector('#cart-count').textContent) + 1)">Add to cart</button>
<span id="cart-count">0</span>
<form action="/results"><input name="q" value=""></form>`;

let server: FixtureServer;
let browser: FirefoxBrowser;
let session: BatchSession;
let spool: SpoolStore;
let root: string;
let context: string;

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), "skill-examples-"));
  server = await startFixtureServer({
    routes: {
      "/shop": (_req, res) => {
        res.writeHead(200, { "content-type": "text/html" }).end(SHOP);
      },
      "/results": (_req, res) => {
        res.writeHead(200, { "content-type": "text/html" }).end("<title>Results</title>ok");
      },
    },
  });
  browser = await launchFirefox({ headless: true });
  spool = new SpoolStore({ fs: nodeSpoolFs, prefix: join(root, "spool-") });
  session = new BatchSession({ transport: clientTransport(browser.client), spool });
  context = (await browser.client.send("browsingContext.create", { type: "tab" })).context;
});

afterAll(async () => {
  session?.dispose();
  await browser?.close();
  await spool?.dispose();
  await server?.close();
  await rm(root, { recursive: true, force: true });
});

async function runExample(index: number): Promise<BatchPayload> {
  const text = examples[index]!.replaceAll('"CTX"', JSON.stringify(context)).replaceAll(
    "https://example.com/",
    server.url("/shop"),
  );
  const call = JSON.parse(text) as ToolParams;
  expect(Object.keys(call).every((key) => key in toolParameters.properties)).toBe(true);
  const waitMethods =
    call.wait === undefined ? undefined : Array.isArray(call.wait) ? call.wait : [call.wait];
  const result = await session.run({
    frames: call.frames as never,
    ...(waitMethods
      ? {
          wait: {
            methods: waitMethods,
            ...(call.waitContext ? { context: call.waitContext } : {}),
            timeoutMs: call.waitTimeoutMs ?? 10_000,
          },
        }
      : {}),
  });
  return result.payload;
}

function okFrames(payload: BatchPayload): void {
  expect(
    payload.frames.map((frame) => frame.status),
    JSON.stringify(payload.frames).slice(0, 2000),
  ).toEqual(payload.frames.map(() => "ok"));
}

describe("SKILL.md worked batches on Firefox 153", () => {
  it("has the five worked batches", () => {
    expect(examples).toHaveLength(5);
  });

  it("opens a page in a new tab, reads the title and waits for the load", async () => {
    const payload = await runExample(0);
    okFrames(payload);
    expect(payload.frames[3]).toMatchObject({
      response: { result: { result: { type: "string", value: "Shop" } } },
    });
    expect(payload.wait).toMatchObject({ status: "matched" });
    // Work on in the tab the example opened? The later examples use the test's own tab.
    await browser.client.send("browsingContext.navigate", {
      context,
      url: server.url("/shop"),
      wait: "complete",
    });
  });

  it("clicks a button found by accessible name with trusted input", async () => {
    const payload = await runExample(1);
    okFrames(payload);
    expect(payload.frames[2]).toMatchObject({
      response: { result: { result: { type: "string", value: "1" } } },
    });
  });

  it("types into a field, presses Enter and waits for the navigation", async () => {
    const payload = await runExample(2);
    okFrames(payload);
    expect(payload.wait).toMatchObject({ status: "matched" });
    const url = (payload.wait as unknown as { matched: { params: { url: string } }[] }).matched[0]?.params
      .url;
    expect(url).toBe(server.url("/results?q=f"));
  });

  it("collects two console entries during the call", async () => {
    const payload = await runExample(3);
    okFrames(payload);
    expect(payload.wait).toMatchObject({ status: "matched" });
    const texts = (payload.wait as unknown as { matched: { params: { text: string } }[] }).matched.map(
      (event) => event.params.text,
    );
    expect(texts).toEqual(["one", "two"]);
  });

  it("takes a full-page screenshot", async () => {
    const payload = await runExample(4);
    okFrames(payload);
    const frame = payload.frames[0] as {
      response?: { result: { data: string } };
      spooled?: { path: string };
    };
    const data =
      frame.response?.result.data ?? JSON.parse(readFileSync(frame.spooled!.path, "utf8")).result.data;
    expect(Buffer.from(data, "base64").subarray(1, 4).toString("latin1")).toBe("PNG");
  });
});
