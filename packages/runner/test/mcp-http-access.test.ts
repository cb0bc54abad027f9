/**
 * The access policy of `webbrain mcp --port` on its own (the attacks themselves run over real
 * HTTP in security-mcp-http.test.ts): which Host and Origin values pass, how the token is
 * checked, and that CORS headers go only to origins the user allowed.
 */
import type { IncomingMessage } from "node:http";
import { describe, expect, it } from "vitest";
import { AccessPolicy, isLoopbackAddress } from "../src/mcp/mcp-http-access.js";

const TOKEN = "0123456789abcdef0123456789abcdef";

function request(headers: Record<string, string>): IncomingMessage {
  return { headers } as unknown as IncomingMessage;
}

function policy(overrides: Partial<ConstructorParameters<typeof AccessPolicy>[0]> = {}): AccessPolicy {
  return new AccessPolicy({
    port: 8931,
    listenHosts: ["127.0.0.1", "127.0.0.1"],
    extraHosts: [],
    extraOrigins: [],
    token: TOKEN,
    ...overrides,
  });
}

describe("AccessPolicy", () => {
  it("lets in loopback Hosts with the port, and refuses every other name or port", () => {
    const access = policy();
    for (const host of ["127.0.0.1:8931", "localhost:8931", "[::1]:8931"]) {
      expect(access.checkSource(request({ host })).ok, host).toBe(true);
    }
    for (const host of ["evil.example:8931", "127.0.0.1:80", "localhost", "127.0.0.1.evil.example:8931"]) {
      expect(access.checkSource(request({ host })), host).toMatchObject({ ok: false, status: 403 });
    }
    expect(access.checkSource(request({}))).toMatchObject({ ok: false, status: 403 });
  });

  it("adds the --host name and --allow-host values, but never a wildcard address", () => {
    const access = policy({
      listenHosts: ["0.0.0.0", "0.0.0.0"],
      extraHosts: ["box.lan", "[fe80::1]", "proxy:443"],
    });
    expect(access.allowedHosts).toEqual(
      expect.arrayContaining(["box.lan:8931", "[fe80::1]:8931", "proxy:443", "localhost:8931"]),
    );
    expect(access.allowedHosts.some((host) => host.startsWith("0.0.0.0"))).toBe(false);
  });

  it("lets in a request without Origin or with the server's own, and refuses any other page's", () => {
    const access = policy({ extraOrigins: ["http://localhost:6274"] });
    const host = "127.0.0.1:8931";
    expect(access.checkSource(request({ host })).ok).toBe(true);
    expect(access.checkSource(request({ host, origin: "http://127.0.0.1:8931" })).ok).toBe(true);
    expect(access.checkSource(request({ host, origin: "http://localhost:6274" })).ok).toBe(true);
    for (const origin of [
      "http://127.0.0.1:3000",
      "null",
      "http://evil.example",
      "http://localhost:6274.evil",
    ]) {
      expect(access.checkSource(request({ host, origin })), origin).toMatchObject({ ok: false, status: 403 });
    }
  });

  it("needs the exact bearer token, with a WWW-Authenticate header when it is missing or wrong", () => {
    const access = policy();
    expect(access.checkToken(request({ authorization: `Bearer ${TOKEN}` })).ok).toBe(true);
    const missing = access.checkToken(request({}));
    expect(missing).toMatchObject({ ok: false, status: 401 });
    expect(missing.ok ? {} : missing.headers).toEqual({ "www-authenticate": 'Bearer realm="webbrain-mcp"' });
    for (const authorization of [`Bearer ${TOKEN}x`, `Bearer ${TOKEN.slice(1)}`, `Basic ${TOKEN}`, TOKEN]) {
      expect(access.checkToken(request({ authorization })), authorization).toMatchObject({
        ok: false,
        status: 401,
      });
    }
  });

  it("answers CORS only for an --allow-origin origin", () => {
    const access = policy({ extraOrigins: ["http://localhost:6274"] });
    expect(access.corsHeaders(request({ origin: "http://localhost:6274" }))).toMatchObject({
      "access-control-allow-origin": "http://localhost:6274",
    });
    expect(access.corsHeaders(request({ origin: "http://127.0.0.1:8931" }))).toEqual({});
    expect(access.preflightHeaders(request({ origin: "http://evil.example" }))).toBeUndefined();
  });

  it("knows loopback addresses", () => {
    for (const address of ["127.0.0.1", "127.1.2.3", "::1", "::ffff:127.0.0.1"]) {
      expect(isLoopbackAddress(address), address).toBe(true);
    }
    for (const address of ["0.0.0.0", "::", "192.168.1.5", "10.0.0.1"]) {
      expect(isLoopbackAddress(address), address).toBe(false);
    }
  });
});
