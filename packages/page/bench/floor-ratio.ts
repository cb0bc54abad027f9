/**
 * `npx tsx packages/page/bench/floor-ratio.ts [rounds] [--only <label>]`: the tree build against
 * its floor (floor.ts) in the sandbox realm, on the generated 5,000-element page and the
 * python3-doc manuals (issue 12's target: build <= 1.2x floor). Faster than `npm run bench`,
 * which prints the same column among the others.
 */
import type { Server } from "node:http";
import { callFunction, createTab, evaluate, launchFirefox, navigate } from "@webbrain/bidi";
import { buildPageScript } from "../src/bundle.js";
import { BIG_PAGE_PATH, docPages, PYTHON_DOC_ROOT, startBenchFixtures } from "./bench-pages.js";
import { measureFloorRatio, showFloorRatio } from "./floor.js";
import { serveDirectory } from "./static-server.js";

const DEFAULT_ROUNDS = 9;
const TARGET_RATIO = 1.2;

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const onlyAt = args.indexOf("--only");
  const only = onlyAt >= 0 ? args[onlyAt + 1] : undefined;
  const rounds = Number(args[0] && args[0] !== "--only" ? args[0] : DEFAULT_ROUNDS);
  if (!Number.isInteger(rounds) || rounds < 1)
    throw new Error("floor-ratio: rounds must be a whole number >= 1");
  const fixtures = await startBenchFixtures();
  const pages = [{ label: "generated 5,000 elements", url: fixtures.url(BIG_PAGE_PATH) }];
  let docServer: { server: Server; origin: string } | undefined;
  const docs = docPages();
  if (docs.length > 0) {
    docServer = await serveDirectory(PYTHON_DOC_ROOT);
    for (const d of docs) pages.push({ label: d.label, url: `${docServer.origin}${d.path}` });
  } else {
    console.log(`(no ${PYTHON_DOC_ROOT}: apt-get install -y python3-doc to bench real manuals)`);
  }
  const chosen = only ? pages.filter((p) => p.label.includes(only)) : pages;
  const firefox = await launchFirefox({ prefs: { "privacy.reduceTimerPrecision": false } });
  const script = await buildPageScript();
  let misses = 0;
  try {
    const context = await createTab(firefox.client);
    console.log(
      `build/floor in the sandbox: Firefox CPU time over ${rounds} alternating rounds [quartiles of the rounds], ` +
        "CPU ms per build/floor, in-page wall-clock ratio of medians",
    );
    for (const page of chosen) {
      await navigate(firefox.client, context, page.url);
      const target = { context, sandbox: "webbrain" };
      await evaluate(firefox.client, target, script, { awaitPromise: false });
      const r = await measureFloorRatio(
        <T>(fn: string, fnArgs: unknown[]) => callFunction<T>(firefox.client, target, fn, fnArgs),
        firefox.pid,
        rounds,
      );
      if (r.ratio > TARGET_RATIO) misses++;
      console.log(`  ${page.label.padEnd(38)} ${showFloorRatio(r)}${r.ratio > TARGET_RATIO ? "  MISS" : ""}`);
    }
  } finally {
    await firefox.close();
    await fixtures.close();
    docServer?.server.close();
  }
  console.log(misses === 0 ? `all within ${TARGET_RATIO}x` : `${misses} page(s) over ${TARGET_RATIO}x`);
}

await main();
