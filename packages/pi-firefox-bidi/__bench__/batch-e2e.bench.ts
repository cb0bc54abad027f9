/**
 * The same 10-frame batch against one real headless Firefox, four ways, each
 * sending a frame only after the previous one answered:
 * - bare `ws` (baseline): JSON out, match by id;
 * - the firefox_bidi tool path (executeBatchCall over BidiClient);
 * - puppeteer-core's BiDi connection as `puppeteer.connect` sets it up (it
 *   subscribes to browsingContext, network, log, script and input events);
 * - puppeteer-core's BidiConnection class alone, without those subscriptions.
 * Firefox allows one BiDi session at a time, so the ways take turns: each turn
 * opens a session, runs BATCHES_PER_TURN batches (the first untimed), ends the
 * session; the order of the ways rotates from turn to turn.
 * Targets: tool within 1.1x of bare ws, and faster than puppeteer-core.
 * Method: __bench__/README.md.
 */
import { connectBidi, resolveFirefoxExecutable, startFirefoxProcess } from "@webbrain/bidi";
import type { BatchFrameInput } from "@webbrain/bidi/batch";
import puppeteer from "puppeteer-core";
import { BidiConnection } from "puppeteer-core/internal/bidi/Connection.js";
import { NodeWebSocketTransport } from "puppeteer-core/internal/node/NodeWebSocketTransport.js";
import { createIncrementalIdGenerator } from "puppeteer-core/internal/util/incremental-id-generator.js";
import {
  BareWsClient,
  batchFrames,
  explainMissingFirefox,
  formatMs,
  plainCommands,
  type Stats,
  stats,
} from "./batch-shape.js";
import { toolOverSession } from "./tool-runtime.js";

const TURNS = Number(process.env.BENCH_TURNS ?? 10);
/** The first batch of each turn runs untimed: it pays for the fresh session's first navigation. */
const BATCHES_PER_TURN = Number(process.env.BENCH_BATCHES ?? 4);
const TARGET_VS_BARE = 1.1;

interface Sender {
  send(method: string, params: Record<string, unknown>): Promise<unknown>;
}

/** One batch through a generic sender: tree first, then the rest with the context filled in. */
async function runCommandsOneByOne(sender: Sender): Promise<void> {
  const tree = (await sender.send("browsingContext.getTree", {})) as {
    result?: { contexts: { context: string }[] };
  };
  const contexts = tree.result?.contexts ?? (tree as { contexts: { context: string }[] }).contexts;
  for (const command of plainCommands(contexts[0]!.context))
    await sender.send(command.method, command.params);
}

type Way = (
  wsEndpoint: string,
  executablePath: string,
  timeBatch: (run: () => Promise<void>) => Promise<void>,
) => Promise<void>;

let idOffset = 0;
/** Per tool batch: (batch time - time inside sendUntyped) / time inside sendUntyped. */
const ownShares: number[] = [];
function freshFrames(): BatchFrameInput[] {
  idOffset += 100;
  return batchFrames().map((frame) => ({
    ...frame,
    id: (frame.id ?? 0) + idOffset,
    params: JSON.parse(JSON.stringify(frame.params).replaceAll("{{1.", `{{${1 + idOffset}.`)),
  }));
}

const ways: Record<string, Way> = {
  "bare ws (baseline)": async (endpoint, _exe, timeBatch) => {
    const client = await BareWsClient.connect(`${endpoint}/session`);
    await client.send("session.new", { capabilities: {} });
    for (let i = 0; i < BATCHES_PER_TURN; i += 1) await timeBatch(() => client.runBatch());
    await client.send("session.end", {});
    client.close();
  },
  "firefox_bidi tool": async (endpoint, exe, timeBatch) => {
    const tool = await toolOverSession(await connectBidi(endpoint), exe, { timeRoundTrips: true });
    for (let i = 0; i < BATCHES_PER_TURN; i += 1) {
      const frames = freshFrames();
      await timeBatch(async () => {
        const started = performance.now();
        const { text } = await tool.run({ frames });
        ownShares.push((performance.now() - started - tool.lastRoundTripMs()) / tool.lastRoundTripMs());
        if (text.includes('"status":"error"')) throw new Error(`tool batch failed: ${text.slice(0, 800)}`);
      });
    }
    await tool.dispose(); // ends the session
  },
  "puppeteer.connect (BiDi)": async (endpoint, _exe, timeBatch) => {
    const browser = await puppeteer.connect({
      browserWSEndpoint: `${endpoint}/session`,
      protocol: "webDriverBiDi",
    });
    const connection = (browser as unknown as { connection: Sender }).connection;
    for (let i = 0; i < BATCHES_PER_TURN; i += 1) await timeBatch(() => runCommandsOneByOne(connection));
    await browser.disconnect(); // ends the session
  },
  "puppeteer BidiConnection only": async (endpoint, _exe, timeBatch) => {
    const url = `${endpoint}/session`;
    const connection = new BidiConnection(
      url,
      await NodeWebSocketTransport.create(url),
      createIncrementalIdGenerator(),
    );
    const sender = connection as unknown as Sender;
    await sender.send("session.new", { capabilities: {} });
    for (let i = 0; i < BATCHES_PER_TURN; i += 1) await timeBatch(() => runCommandsOneByOne(sender));
    await sender.send("session.end", {});
    connection.dispose();
  },
};

async function main(): Promise<void> {
  let executablePath: string;
  try {
    executablePath = resolveFirefoxExecutable();
  } catch (error) {
    explainMissingFirefox(error);
  }
  const firefox = await startFirefoxProcess({ executablePath, headless: true });
  const samples: Record<string, number[]> = Object.fromEntries(Object.keys(ways).map((name) => [name, []]));
  try {
    const names = Object.keys(ways);
    // One untimed warm-up turn per way (first navigations, JIT on both sides).
    for (const name of names) await ways[name]!(firefox.wsEndpoint, executablePath, (run) => run());
    for (let turn = 0; turn < TURNS; turn += 1) {
      for (let k = 0; k < names.length; k += 1) {
        const name = names[(turn + k) % names.length]!;
        let batchInTurn = 0;
        await ways[name]!(firefox.wsEndpoint, executablePath, async (run) => {
          batchInTurn += 1;
          const started = performance.now();
          await run();
          if (batchInTurn > 1) samples[name]!.push(performance.now() - started);
        });
      }
    }
  } finally {
    firefox.killGroup();
    await firefox.dispose(0);
  }

  const results: Record<string, Stats> = Object.fromEntries(
    Object.entries(samples).map(([name, s]) => [name, stats(s)]),
  );
  const baseline = results["bare ws (baseline)"]!;
  console.log(
    `firefox_bidi e2e: ${batchFrames().length}-frame batch (tree, navigate, 6x evaluate, screenshot, tree) on headless Firefox, ${TURNS} turns x ${BATCHES_PER_TURN - 1} timed batches`,
  );
  for (const [name, s] of Object.entries(results)) {
    console.log(
      `  ${name.padEnd(30)} median ${formatMs(s.median)}  mean ${formatMs(s.mean)}  p90 ${formatMs(s.p90)}  ${(s.median / baseline.median).toFixed(3)}x bare ws`,
    );
  }
  const tool = results["firefox_bidi tool"]!;
  const pptr = results["puppeteer.connect (BiDi)"]!;
  const vsBare = tool.median / baseline.median;
  const own = stats(ownShares);
  console.log(
    `  tool overhead over its own round trips (time outside sendUntyped / time inside, per batch): median ${(own.median * 100).toFixed(2)}%  p90 ${(own.p90 * 100).toFixed(2)}%`,
  );
  console.log(
    `  tool vs bare ws: ${vsBare.toFixed(3)}x (target <= ${TARGET_VS_BARE}x): ${vsBare <= TARGET_VS_BARE ? "met" : "not met"}`,
  );
  console.log(
    `  tool vs puppeteer.connect: ${(tool.median / pptr.median).toFixed(3)}x (target < 1): ${tool.median < pptr.median ? "met" : "not met"}`,
  );
}

await main();
