/**
 * The add-on's companion client against a stand-in native port (the real one needs Firefox and
 * the host: companion.test.ts): a companion that dies mid-call fails that call at once with a
 * sentence saying so, the next call opens a new port, and every call carries the tab's marker,
 * written into the tab before it is sent.
 */
import type { CompanionRequest } from "@webbrain/protocol";
import { describe, expect, it } from "vitest";
import { CompanionClient, CompanionGoneError, type CompanionIo } from "../src/background/companion-client.js";

type Listener<A extends unknown[]> = (...args: A) => void;

/** A native port whose companion answers `hello` and records page actions, until it "dies". */
function standInCompanion() {
  const ports: {
    sent: CompanionRequest[];
    die(error?: string): void;
    answer(id: number, result: unknown): void;
  }[] = [];
  const marks: [number, string][] = [];
  const io: CompanionIo = {
    connect: () => {
      const messageListeners: Listener<[unknown, browser.runtime.Port]>[] = [];
      const disconnectListeners: Listener<[browser.runtime.Port]>[] = [];
      const sent: CompanionRequest[] = [];
      const port: browser.runtime.Port = {
        name: "webbrain_companion",
        error: null,
        postMessage: (message) => {
          sent.push(message as CompanionRequest);
          if ((message as CompanionRequest).type === "hello") {
            const { id } = message as CompanionRequest;
            queueMicrotask(() => {
              for (const l of messageListeners) l({ id, ok: true, result: { bidi: true, pid: 1 } }, port);
            });
          }
        },
        disconnect: () => {},
        onMessage: {
          addListener: (l) => messageListeners.push(l),
          removeListener: () => {},
          hasListener: () => false,
        },
        onDisconnect: {
          addListener: (l) => disconnectListeners.push(l),
          removeListener: () => {},
          hasListener: () => false,
        },
      };
      ports.push({
        sent,
        die: (error) => {
          port.error = error ? { message: error } : null;
          for (const l of disconnectListeners) l(port);
        },
        answer: (id, result) => {
          for (const l of messageListeners) l({ id, ok: true, result }, port);
        },
      });
      return port;
    },
    mark: async (tabId, marker) => {
      marks.push([tabId, marker]);
    },
  };
  return { io, ports, marks };
}

describe("CompanionClient", () => {
  it("fails a call in flight when the companion dies, and the next call starts a new one", async () => {
    const companion = standInCompanion();
    const client = new CompanionClient(companion.io);
    expect(await client.hello()).toEqual({ bidi: true, pid: 1 });

    const call = client.pageAction(3, "click_ax", { ref_id: 4 });
    await expect.poll(() => companion.ports[0]!.sent.length).toBe(2);
    companion.ports[0]!.die("Exited with code 137");
    await expect(call).rejects.toThrow(CompanionGoneError);
    await expect(call).rejects.toThrow(
      "The companion stopped (Exited with code 137); this call was not finished. The next call starts it again.",
    );

    const again = client.pageAction(3, "click_ax", { ref_id: 4 });
    await expect.poll(() => companion.ports.length).toBe(2);
    await expect.poll(() => companion.ports[1]!.sent.length).toBe(1);
    const request = companion.ports[1]!.sent[0]!;
    companion.ports[1]!.answer(request.id, { success: true });
    expect(await again).toEqual({ success: true });
  });

  it("names each tab by its own marker, written before each call; a closed tab's is forgotten", async () => {
    const companion = standInCompanion();
    const client = new CompanionClient(companion.io);
    const calls = [client.pageAction(1, "read_page", {}), client.pageAction(2, "read_page", {})];
    await expect.poll(() => companion.ports[0]?.sent.length).toBe(2);
    const [first, second] = companion.ports[0]!.sent as Extract<CompanionRequest, { type: "page_action" }>[];
    expect(first!.marker).not.toBe(second!.marker);
    expect(companion.marks).toEqual([
      [1, first!.marker],
      [2, second!.marker],
    ]);
    for (const request of [first!, second!]) companion.ports[0]!.answer(request.id, { success: true });
    await Promise.all(calls);

    client.forgetTab(1);
    const later = client.pageAction(1, "read_page", {});
    await expect.poll(() => companion.ports[0]!.sent.length).toBe(3);
    const third = companion.ports[0]!.sent[2] as Extract<CompanionRequest, { type: "page_action" }>;
    expect(third.marker).not.toBe(first!.marker);
    companion.ports[0]!.answer(third.id, { success: true });
    await later;
  });

  it("turned off, fails what is in flight and closes the port", async () => {
    const companion = standInCompanion();
    const client = new CompanionClient(companion.io);
    const call = client.pageAction(1, "read_page", {});
    await expect.poll(() => companion.ports[0]?.sent.length).toBe(1);
    client.disconnect();
    await expect(call).rejects.toThrow("The companion was turned off.");
  });
});
