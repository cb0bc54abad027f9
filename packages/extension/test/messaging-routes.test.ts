/**
 * The user's protected messaging routes as the background reads them (shared/messaging-routes.ts)
 * for agent runs and workflow replays: the built-in route always, and each stored line that
 * parses, a bad one skipped alone.
 */
import { PROTECTED_MESSAGING_ROUTES } from "@webbrain/agent";
import { describe, expect, it } from "vitest";
import {
  loadProtectedRoutes,
  MESSAGING_ROUTES_KEY,
  protectedRoutes,
  routeLine,
  storedRouteLines,
} from "../src/shared/messaging-routes.js";
import { MemoryArea } from "./memory-area.js";

describe("protected messaging routes from storage", () => {
  it("nothing stored, or not a string: the built-in routes only", () => {
    expect(protectedRoutes(undefined)).toEqual([...PROTECTED_MESSAGING_ROUTES]);
    expect(protectedRoutes(["chat.example.com /t Chat"])).toEqual([...PROTECTED_MESSAGING_ROUTES]);
    expect(PROTECTED_MESSAGING_ROUTES.map(routeLine)).toEqual(["douyin.com /chat Douyin chat"]);
  });

  it("a malformed line is skipped alone: the user's other routes stay protected", () => {
    const stored = "# mine\nchat.example.com /t Example chat\nbroken line\n\nmail.example.org /inbox Mail";
    expect(storedRouteLines(stored)).toEqual([
      "chat.example.com /t Example chat",
      "broken line",
      "mail.example.org /inbox Mail",
    ]);
    expect(protectedRoutes(stored).map(routeLine)).toEqual([
      "douyin.com /chat Douyin chat",
      "chat.example.com /t Example chat",
      "mail.example.org /inbox Mail",
    ]);
  });

  it("reads the key the settings page writes", async () => {
    const area = new MemoryArea();
    await area.set({ [MESSAGING_ROUTES_KEY]: "127.0.0.1:8080 /chat Test chat" });
    expect((await loadProtectedRoutes(area)).map(routeLine)).toEqual([
      "douyin.com /chat Douyin chat",
      "127.0.0.1:8080 /chat Test chat",
    ]);
  });
});
