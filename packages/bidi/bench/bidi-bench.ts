/**
 * Benchmark: @webbrain/bidi against puppeteer-core 24 driving the same Firefox binary.
 *
 * 1. launch-to-ready: launchFirefox() vs puppeteer.launch({browser: "firefox"}), alternating runs,
 *    each timed from the call until the promise resolves with a usable BiDi session.
 * 2. 200 `script.evaluate` round trips, sequential (await each) and pipelined (all in flight),
 *    through our client vs puppeteer's BiDi connection (`browser.connection.send`). Each library
 *    drives a browser it launched; both browsers run side by side and the two alternate in chunks
 *    of 20 sequential calls (and per pipelined burst), so both see the same machine load; rounds
 *    alternate which library goes first.
 * Prints per-run figures, then medians and ratios (ours / puppeteer).
 * Targets: launch <= 0.9x, round trips <= 1.0x.
 * Knobs: BENCH_LAUNCH_RUNS (default 7 per side), BENCH_RT_ROUNDS (default 15), FIREFOX_BIN.
 */
import { existsSync } from "node:fs";
import puppeteer from "puppeteer-core";
import { getTopLevelContext, launchFirefox, resolveFirefoxExecutable } from "../src/index.js";

const LAUNCH_RUNS = Number(process.env.BENCH_LAUNCH_RUNS ?? 7);
const RT_ROUNDS = Number(process.env.BENCH_RT_ROUNDS ?? 15);
const ROUND_TRIPS = 200;
/** Evaluations before measuring, so both browsers have finished their post-startup work. */
const WARMUP_ROUND_TRIPS = 200;
const LAUNCH_TARGET = 0.9;
const ROUND_TRIP_TARGET = 1.0;
const FIREFOX_ESR_PATH = "/usr/bin/firefox-esr";

/** Sends one script.evaluate and waits for its answer. */
type EvaluateOnce = (i: number) => Promise<unknown>;

/** A launched browser with a round-trip driver and its close. */
interface RoundTripSubject {
  evaluateOnce: EvaluateOnce;
  close(): Promise<void>;
}

interface PuppeteerBidiConnection {
  send(method: string, params: object): Promise<{ result: unknown }>;
}

/** The issue asks for firefox-esr itself (not the /usr/bin/firefox wrapper script) when present. */
const executablePath = resolveFirefoxExecutable(
  process.env.FIREFOX_BIN ?? (existsSync(FIREFOX_ESR_PATH) ? FIREFOX_ESR_PATH : undefined),
);

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? (sorted[mid] ?? 0) : ((sorted[mid - 1] ?? 0) + (sorted[mid] ?? 0)) / 2;
}

async function timeIt(fn: () => Promise<unknown>): Promise<number> {
  const start = performance.now();
  await fn();
  return performance.now() - start;
}

async function launchOurs(): Promise<number> {
  let close: () => Promise<void> = async () => {};
  const ms = await timeIt(async () => {
    const browser = await launchFirefox({ executablePath });
    close = browser.close;
  });
  await close();
  return ms;
}

async function launchPuppeteer(): Promise<number> {
  let close: () => Promise<void> = async () => {};
  const ms = await timeIt(async () => {
    const browser = await puppeteer.launch({ browser: "firefox", executablePath, headless: true });
    close = () => browser.close();
  });
  await close();
  return ms;
}

function evaluateParams(context: string, i: number) {
  return { expression: `${i} * 2`, target: { context }, awaitPromise: false };
}

async function oursSubject(): Promise<RoundTripSubject> {
  const browser = await launchFirefox({ executablePath });
  const context = await getTopLevelContext(browser.client);
  return {
    evaluateOnce: (i) => browser.client.send("script.evaluate", evaluateParams(context, i)),
    close: browser.close,
  };
}

async function puppeteerSubject(): Promise<RoundTripSubject> {
  const browser = await puppeteer.launch({ browser: "firefox", executablePath, headless: true });
  // BidiBrowser exposes its connection; its send is puppeteer's raw BiDi command path.
  const connection = (browser as unknown as { connection: PuppeteerBidiConnection }).connection;
  const tree = (await connection.send("browsingContext.getTree", { maxDepth: 0 })).result as {
    contexts: { context: string }[];
  };
  const context = tree.contexts[0]?.context ?? "";
  return {
    evaluateOnce: (i) => connection.send("script.evaluate", evaluateParams(context, i)),
    close: () => browser.close(),
  };
}

/** Sequential calls are timed in chunks that alternate between the two subjects (same load). */
const SEQUENTIAL_CHUNK = 20;

async function sequentialChunk(evaluateOnce: EvaluateOnce, from: number): Promise<number> {
  return timeIt(async () => {
    for (let i = from; i < from + SEQUENTIAL_CHUNK; i++) await evaluateOnce(i);
  });
}

/** One round: 200 sequential calls per side (interleaved in chunks), then 200 pipelined per side. */
async function roundTrips(first: RoundTripSubject, second: RoundTripSubject) {
  const sequential = new Map<RoundTripSubject, number>([
    [first, 0],
    [second, 0],
  ]);
  for (let from = 0; from < ROUND_TRIPS; from += SEQUENTIAL_CHUNK) {
    for (const subject of [first, second]) {
      sequential.set(
        subject,
        (sequential.get(subject) ?? 0) + (await sequentialChunk(subject.evaluateOnce, from)),
      );
    }
  }
  const pipelined = new Map<RoundTripSubject, number>();
  for (const subject of [first, second]) {
    const { evaluateOnce } = subject;
    pipelined.set(
      subject,
      await timeIt(() => Promise.all(Array.from({ length: ROUND_TRIPS }, (_, i) => evaluateOnce(i)))),
    );
  }
  return { sequential, pipelined };
}

function row(label: string, ours: number, theirs: number, target: number): string {
  const ratio = ours / theirs;
  const verdict = ratio <= target ? "met" : "MISSED";
  return `${label.padEnd(34)}${ours.toFixed(1).padStart(10)}${theirs.toFixed(1).padStart(14)}${ratio
    .toFixed(2)
    .padStart(9)}x   target <= ${target.toFixed(1)}x ${verdict}`;
}

async function benchLaunch(): Promise<{ ours: number[]; theirs: number[] }> {
  const ours: number[] = [];
  const theirs: number[] = [];
  for (let run = 0; run < LAUNCH_RUNS; run++) {
    if (run % 2 === 0) {
      ours.push(await launchOurs());
      theirs.push(await launchPuppeteer());
    } else {
      theirs.push(await launchPuppeteer());
      ours.push(await launchOurs());
    }
    console.log(
      `  launch run ${run + 1}: ours ${ours.at(-1)?.toFixed(0)} ms, puppeteer ${theirs.at(-1)?.toFixed(0)} ms`,
    );
  }
  return { ours, theirs };
}

async function benchRoundTrips() {
  const out = {
    oursSeq: [] as number[],
    oursPipe: [] as number[],
    theirSeq: [] as number[],
    theirPipe: [] as number[],
  };
  const ours = await oursSubject();
  let theirs: RoundTripSubject | undefined;
  try {
    theirs = await puppeteerSubject();
    for (let i = 0; i < WARMUP_ROUND_TRIPS; i++) {
      await ours.evaluateOnce(i);
      await theirs.evaluateOnce(i);
    }
    for (let round = 0; round < RT_ROUNDS; round++) {
      const [first, second] = round % 2 === 0 ? [ours, theirs] : [theirs, ours];
      const { sequential, pipelined } = await roundTrips(first, second);
      const o = { sequential: sequential.get(ours) ?? 0, pipelined: pipelined.get(ours) ?? 0 };
      const t = { sequential: sequential.get(theirs) ?? 0, pipelined: pipelined.get(theirs) ?? 0 };
      out.oursSeq.push(o.sequential);
      out.oursPipe.push(o.pipelined);
      out.theirSeq.push(t.sequential);
      out.theirPipe.push(t.pipelined);
      console.log(
        `  round ${round + 1}: sequential ours ${o.sequential.toFixed(1)} / pptr ${t.sequential.toFixed(1)} ms;` +
          ` pipelined ours ${o.pipelined.toFixed(1)} / pptr ${t.pipelined.toFixed(1)} ms`,
      );
    }
  } finally {
    await ours.close();
    await theirs?.close();
  }
  return out;
}

async function main(): Promise<void> {
  const pptr = await import("puppeteer-core/package.json", { with: { type: "json" } });
  console.log(`firefox: ${executablePath}; puppeteer-core ${pptr.default.version}; node ${process.version}`);
  console.log(`launch: ${LAUNCH_RUNS} runs per side, alternating; round trips: ${RT_ROUNDS} rounds\n`);
  const launch = await benchLaunch();
  const rt = await benchRoundTrips();
  console.log(
    `\n${"medians".padEnd(34)}${"ours ms".padStart(10)}${"puppeteer ms".padStart(14)}${"ratio".padStart(10)}`,
  );
  console.log(row("launch-to-ready", median(launch.ours), median(launch.theirs), LAUNCH_TARGET));
  const seq = `${ROUND_TRIPS} x script.evaluate, sequential`;
  console.log(row(seq, median(rt.oursSeq), median(rt.theirSeq), ROUND_TRIP_TARGET));
  const pipe = `${ROUND_TRIPS} x script.evaluate, pipelined`;
  console.log(row(pipe, median(rt.oursPipe), median(rt.theirPipe), ROUND_TRIP_TARGET));
}

await main();
