import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { request } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type FixtureServer, startFixtureServer } from "../src/index.js";

let root: string;
let server: FixtureServer;
beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), "fixture-root-"));
  writeFileSync(join(root, "index.html"), "<h1>home</h1>");
  writeFileSync(join(root, "data.json"), '{"ok":true}');
  writeFileSync(join(tmpdir(), "fixture-secret.txt"), "TOP-SECRET-CONTENT");
  server = await startFixtureServer({
    root,
    routes: {
      "/api/echo": (req, res) => {
        res.writeHead(200, { "content-type": "text/plain" });
        res.end(`echo ${req.method} ${req.url}`);
      },
    },
  });
});
afterAll(async () => {
  await server?.close();
  rmSync(root, { recursive: true, force: true });
});

/** Raw GET so that `..` is not normalised away by a URL parser before it reaches the server. */
function rawGet(port: number, path: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: "127.0.0.1", port, path }, (res) => {
      let body = "";
      res.setEncoding("utf8").on("data", (c: string) => {
        body += c;
      });
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on("error", reject);
    req.end();
  });
}

describe("startFixtureServer", () => {
  it("serves files from the root with content types, and index.html for directories", async () => {
    expect(server.origin).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(server.crossOrigin).toBe(`http://localhost:${server.port}`);
    const home = await fetch(server.url("/"));
    expect(home.headers.get("content-type")).toContain("text/html");
    expect(await home.text()).toBe("<h1>home</h1>");
    const json = await fetch(server.url("/data.json"));
    expect(await json.json()).toEqual({ ok: true });
    const viaCross = await fetch(`${server.crossOrigin}/data.json`);
    expect(viaCross.status).toBe(200);
  });

  it("answers 404 for missing files and 403 outside the root", async () => {
    expect((await fetch(server.url("/missing.html"))).status).toBe(404);
    const outside = await rawGet(server.port, "/../fixture-secret.txt");
    expect(outside.body).not.toContain("TOP-SECRET-CONTENT");
    expect([403, 404]).toContain(outside.status);
    const encoded = await rawGet(server.port, "/%2e%2e/fixture-secret.txt");
    expect(encoded.body).not.toContain("TOP-SECRET-CONTENT");
  });

  it("runs routes before files", async () => {
    const res = await fetch(server.url("/api/echo?x=1"));
    expect(await res.text()).toBe("echo GET /api/echo?x=1");
  });

  it("serves packages/testkit/fixtures by default", async () => {
    const own = await startFixtureServer();
    try {
      const res = await fetch(own.url("/harness/focus.html"));
      expect(res.status).toBe(200);
      expect(await res.text()).toContain("Focus probe");
    } finally {
      await own.close();
    }
  });
});
