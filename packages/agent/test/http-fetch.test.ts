// fetch_url's one implementation (fetchText) over a real HTTP server, through Node's fetch as the
// seam (the runner's); the add-on passes its own fetch through the same seam.
import type { IncomingMessage, ServerResponse } from "node:http";
import { type FixtureServer, startFixtureServer } from "@webbrain/testkit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fetchText, HTTP_TEXT_TYPE } from "../src/index.js";

let server: FixtureServer;
const held: ServerResponse[] = [];

function answer(type: string, body: string | Buffer) {
  return (_req: IncomingMessage, res: ServerResponse) => {
    res.writeHead(200, { "content-type": type });
    res.end(body);
  };
}

beforeAll(async () => {
  server = await startFixtureServer({
    routes: {
      "/seam/long.txt": answer("text/plain; charset=utf-8", "é".repeat(5_000)),
      "/seam/data.json": answer("application/vnd.api+json", '{"orders":3}'),
      "/seam/image.png": answer("image/png", Buffer.from([0x89, 0x50, 0x4e, 0x47])),
      "/seam/echo": (req: IncomingMessage, res: ServerResponse) => {
        let body = "";
        req.on("data", (chunk: Buffer) => {
          body += chunk.toString();
        });
        req.on("end", () => {
          res.writeHead(201, { "content-type": "text/plain" });
          res.end(`${req.method} ${req.headers["x-token"]} ${body}`);
        });
      },
      "/seam/never": (_req: IncomingMessage, res: ServerResponse) => {
        held.push(res);
      },
    },
  });
});

afterAll(async () => {
  for (const res of held) res.end();
  await server?.close();
});

describe("fetchText", () => {
  it("reads text types, +json included, and cuts the body at maxChars", async () => {
    const long = await fetchText({ url: server.url("/seam/long.txt"), maxChars: 1_000 }, fetch);
    expect(long).toMatchObject({ status: 200, truncated: true });
    expect(long.body).toBe("é".repeat(1_000));
    const json = await fetchText({ url: server.url("/seam/data.json") }, fetch);
    expect(json).toMatchObject({ status: 200, body: '{"orders":3}', truncated: false });
    expect(json.headers["content-type"]).toBe("application/vnd.api+json");
  });

  it("describes a binary body instead of decoding it", async () => {
    const image = await fetchText({ url: server.url("/seam/image.png") }, fetch);
    expect(image.body).toBe("(binary body of type image/png, not shown)");
    expect(HTTP_TEXT_TYPE.test("application/xhtml+xml")).toBe(true);
    expect(HTTP_TEXT_TYPE.test("application/octet-stream")).toBe(false);
  });

  it("sends method, headers and body", async () => {
    const posted = await fetchText(
      { url: server.url("/seam/echo"), method: "POST", headers: { "x-token": "t1" }, body: "a=1" },
      fetch,
    );
    expect(posted).toMatchObject({ status: 201, body: "POST t1 a=1" });
  });

  it("answers status 0 with a reason for a timeout or a refused connection", async () => {
    const slow = await fetchText({ url: server.url("/seam/never"), timeoutMs: 200 }, fetch);
    expect(slow).toMatchObject({ status: 0, statusText: "no answer within 200 ms", body: "" });
    const refused = await fetchText({ url: "http://127.0.0.1:9/" }, fetch);
    expect(refused.status).toBe(0);
    expect(refused.statusText).toMatch(/^network error: /);
  });

  it("rethrows when the run is stopped, so Stop is not mistaken for a network error", async () => {
    const stop = new AbortController();
    const pending = fetchText({ url: server.url("/seam/never"), timeoutMs: 10_000 }, fetch, stop.signal);
    setTimeout(() => stop.abort(), 50);
    await expect(pending).rejects.toThrow();
  });
});
