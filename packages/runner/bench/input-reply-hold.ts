/**
 * Bench: can the check after a trusted press ride on the press instead of costing its own round
 * trip? Measures how Firefox delivers content-process messages that overlap `input.performActions`.
 *
 * Variants, interleaved (one of each per iteration), on the runner's fixture page:
 * - press alone: the click (move, down, up) with nothing else in flight;
 * - press, then call: the runner's shape (the check is a second round trip after the press);
 * - pipelined call: a sandbox call sent together with the press whose promise settles 5 ms
 *   later (as a check armed before the press would); its reply time is what matters;
 * - message during press: a `script.message` (channel argument) sent by a mouseup listener
 *   armed before the press, i.e. the effect report pushed to us instead of fetched.
 *
 * Printed: medians from the start of the press. On Firefox 153 a reply to a call that overlaps
 * the input is held until about 50 ms after the press starts; a pushed message arrives early, but
 * then Firefox holds the press's own answer instead. Either way the click is done ~50 ms in,
 * while a press and a separate call take ~10-15 ms, so the check after a press stays its own
 * call. (That is why click_ax is resolve + press + verify.)
 *
 * Run: npm run bench -w packages/runner   (after action-round-trips; ~20 s)
 */
import { startFixtureServer } from "@webbrain/testkit";
import { openBrowserConnection } from "../src/browser/browser-connection.js";
import { BidiBrowserPort } from "../src/port/bidi-browser-port.js";
import { PAGE_SANDBOX } from "../src/port/page-script-channel.js";
import { loadPageScript } from "../src/port/page-script-source.js";

const ITERATIONS = Number(process.env.BENCH_ITERATIONS ?? 30);
/** A point inside the viewport, CSS pixels; what it hits does not matter here. */
const PRESS_POINT = { x: 200, y: 100 };
/** How long after the press the pipelined call's promise settles, ms. */
const PIPELINED_SETTLE_MS = 5;
/** How long to wait for a pushed message before calling it lost, ms. */
const MESSAGE_WAIT_MS = 500;
const CHANNEL = "webbrain-bench-effect";

const median = (values: number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
};

const server = await startFixtureServer();
const connection = await openBrowserConnection({});
try {
  const client = connection.client;
  const port = await BidiBrowserPort.open({
    client,
    pageScript: await loadPageScript(),
    downloadsDir: "/nonexistent-unused",
    ownsBrowser: true,
  });
  const tab = port.tabs.activeId!;
  await port.navigate(tab, server.url("/runner/trusted-only.html"));
  await client.subscribe(["script.message"]);
  let messageAt: number | undefined;
  client.on("script.message", (event) => {
    if (event.channel === CHANNEL) messageAt = performance.now();
  });

  const sandboxCall = (functionDeclaration: string, args: unknown[] = []) =>
    client.send("script.callFunction", {
      functionDeclaration,
      awaitPromise: true,
      target: { context: tab, sandbox: PAGE_SANDBOX },
      arguments: args as never,
      resultOwnership: "none",
    });
  const press = () =>
    client.send("input.performActions", {
      context: tab,
      actions: [
        {
          type: "pointer",
          id: "webbrain-mouse",
          parameters: { pointerType: "mouse" },
          actions: [
            { type: "pointerMove", ...PRESS_POINT, origin: "viewport" },
            { type: "pointerDown", button: 0 },
            { type: "pointerUp", button: 0 },
          ],
        },
      ],
    });

  const figures = {
    pressAlone: [] as number[],
    pressThenCall: [] as number[],
    pipelinedPress: [] as number[],
    pipelinedReply: [] as number[],
    messagePress: [] as number[],
    messageArrival: [] as number[],
  };
  let lostMessages = 0;
  for (let i = 0; i < ITERATIONS; i++) {
    let started = performance.now();
    await press();
    figures.pressAlone.push(performance.now() - started);

    started = performance.now();
    await press();
    await sandboxCall("() => 1");
    figures.pressThenCall.push(performance.now() - started);

    started = performance.now();
    let pressDone = 0;
    await Promise.all([
      press().then(() => {
        pressDone = performance.now();
      }),
      sandboxCall(`() => new Promise((resolve) => setTimeout(resolve, ${PIPELINED_SETTLE_MS}))`),
    ]);
    figures.pipelinedPress.push(pressDone - started);
    figures.pipelinedReply.push(performance.now() - started);

    await sandboxCall(
      `(report) => { window.addEventListener("mouseup", () => report("effect"), { capture: true, once: true }); }`,
      [{ type: "channel", value: { channel: CHANNEL, ownership: "none" } }],
    );
    messageAt = undefined;
    started = performance.now();
    await press();
    figures.messagePress.push(performance.now() - started);
    const deadline = performance.now() + MESSAGE_WAIT_MS;
    while (messageAt === undefined && performance.now() < deadline)
      await new Promise((r) => setTimeout(r, 1));
    if (messageAt === undefined) lostMessages++;
    else figures.messageArrival.push(messageAt - started);
  }

  const ms = (values: number[]) => `${median(values).toFixed(2)} ms`.padStart(10);
  console.log(
    `Firefox reply hold around input: ${ITERATIONS} interleaved iterations, ${connection.description}`,
  );
  console.log(`press alone (move, down, up)                       ${ms(figures.pressAlone)}`);
  console.log(`press, then an empty sandbox call (runner's shape) ${ms(figures.pressThenCall)}`);
  console.log(
    `pipelined call settling ${PIPELINED_SETTLE_MS} ms in: press answered   ${ms(figures.pipelinedPress)}`,
  );
  console.log(
    `pipelined call settling ${PIPELINED_SETTLE_MS} ms in: reply arrived    ${ms(figures.pipelinedReply)}`,
  );
  console.log(`script.message from a mouseup listener: press      ${ms(figures.messagePress)}`);
  console.log(`script.message from a mouseup listener: arrived    ${ms(figures.messageArrival)}`);
  if (lostMessages > 0)
    console.log(`(${lostMessages} pushed messages never arrived within ${MESSAGE_WAIT_MS} ms)`);
  // A click is done when Firefox has answered the press *and* the check has arrived.
  const rideByMessage = median(
    figures.messagePress.map((press, i) => Math.max(press, figures.messageArrival[i] ?? press)),
  );
  const bestRide = Math.min(median(figures.pipelinedReply), rideByMessage);
  const separate = median(figures.pressThenCall);
  console.log(
    `check riding on the press (press answered and check in): ${bestRide.toFixed(2)} ms; press then a separate call: ${separate.toFixed(2)} ms: ${bestRide < separate ? "riding is faster" : "a separate call is faster"}`,
  );
  port.dispose();
} finally {
  await connection.close();
  await server.close();
}
