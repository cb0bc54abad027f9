/**
 * A fake BiDi remote end for the hot-path benchmark, run as its own process so
 * its CPU time never lands in the measured client. Answers every command at
 * with a plausible result of realistic size, after FAKE_LATENCY_MS (default 0);
 * prints `PORT <n>` when ready.
 */
import { WebSocketServer } from "ws";

/** About the size of a small viewport screenshot's base64 (~40 KB). */
const SCREENSHOT_BASE64 = Buffer.alloc(30_000, 7).toString("base64");

function resultFor(method: string, params: Record<string, unknown>): unknown {
  switch (method) {
    case "session.new":
      return { sessionId: "fake-session", capabilities: { browserName: "firefox", browserVersion: "fake" } };
    case "browsingContext.getTree":
      return {
        contexts: [
          {
            context: "CTX-1",
            url: "about:blank",
            children: [],
            parent: null,
            userContext: "default",
            originalOpener: null,
            clientWindow: "W-1",
          },
        ],
      };
    case "browsingContext.navigate":
      return { navigation: "NAV-1", url: params.url };
    case "script.evaluate":
      return { type: "success", realm: "REALM-1", result: { type: "number", value: 42 } };
    case "browsingContext.captureScreenshot":
      return { data: SCREENSHOT_BASE64 };
    default:
      return {};
  }
}

/** Service time per command; 0 answers at once. Set by the benchmark (FAKE_LATENCY_MS). */
const LATENCY_MS = Number(process.env.FAKE_LATENCY_MS ?? 0);

const server = new WebSocketServer({ host: "127.0.0.1", port: 0, perMessageDeflate: false });
server.on("connection", (socket) => {
  socket.on("message", (data) => {
    const frame = JSON.parse(data.toString()) as {
      id: number;
      method: string;
      params: Record<string, unknown>;
    };
    const answer = JSON.stringify({
      type: "success",
      id: frame.id,
      result: resultFor(frame.method, frame.params ?? {}),
    });
    if (LATENCY_MS > 0) setTimeout(() => socket.send(answer), LATENCY_MS);
    else socket.send(answer);
  });
});
server.on("listening", () => {
  const address = server.address();
  if (typeof address === "object" && address) process.stdout.write(`PORT ${address.port}\n`);
});
process.stdin.on("end", () => server.close(() => process.exit(0)));
process.stdin.resume();
