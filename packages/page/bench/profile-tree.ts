/**
 * `npx tsx packages/page/bench/profile-tree.ts [sandbox|page] [builds]`: where the tree build's
 * time goes on the generated 5,000-element page, measured two ways in one Firefox.
 *
 * 1. Floor (a plain Firefox): the style and layout reads the walk cannot skip
 *    (getComputedStyle, display, cursor, visibility, the rect, position), done alone in walk
 *    order, against the whole build, in the same realm and the same loop (fastest and median
 *    of `builds` rounds).
 * 2. Phases (a second Firefox, with its own sampling profiler: MOZ_PROFILER_STARTUP, 0.2 ms
 *    interval) over `builds` builds; each sample inside buildTree is charged to the innermost
 *    frame that names a phase (a DOM call by its WebIDL label, our functions by name). The
 *    profiler slows JS, so its shares are the result, not its absolute times.
 *
 * Invariants: Firefox writes the profile when it quits, so the browser is closed before the
 * profile is read and the temp file is removed after; a profile cut short (Firefox killed
 * before it finished writing) is reported as such, never half-parsed.
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { callFunction, createTab, evaluate, launchFirefox, navigate } from "@webbrain/bidi";
import { buildPageScript } from "../src/bundle.js";
import { BIG_PAGE_PATH, startBenchFixtures } from "./bench-pages.js";
import { FLOOR_WALK_SOURCE } from "./floor.js";

const DEFAULT_BUILDS = 15;
const PROFILER_INTERVAL_MS = "0.2";
/** Profiler buffer entries: enough for the builds, small enough to be written before the kill. */
const PROFILER_ENTRIES = "4000000";

/** The reads of the floor, cumulative: each step adds one kind of read to the walk. */
const FLOOR_FUNCTION = `async (rounds) => {
  const walk = (${FLOOR_WALK_SOURCE})();
  const steps = ["walk only", "+ getComputedStyle, display", "+ cursor", "+ visibility", "+ rect", "+ position (floor)", "whole tree build"];
  const times = steps.map(() => []);
  for (let round = 0; round < rounds; round++) {
    for (let step = 0; step < steps.length; step++) {
      const started = performance.now();
      if (step === steps.length - 1) await globalThis.__webbrainPage.handle("get_accessibility_tree", { filter: "all" });
      else walk(document.body, step);
      times[step].push(performance.now() - started);
    }
  }
  return steps.map((name, i) => {
    const sorted = times[i].sort((a, b) => a - b);
    return { name, min: sorted[0], median: sorted[Math.floor(sorted.length / 2)] };
  });
}`;

interface Row {
  name: string;
  min: number;
  median: number;
}

/** Gecko's raw profile format, the parts read here. */
interface Table {
  schema: Record<string, number>;
  data: (number | null)[][];
}
interface Thread {
  stringTable: string[];
  frameTable: Table;
  stackTable: Table;
  samples: Table;
}
interface GeckoProfile {
  threads: Thread[];
  processes?: GeckoProfile[];
}

/** Phase of a frame label, or undefined to look further out. Checked innermost frame first. */
const PHASES: { phase: string; matches: (label: string) => boolean }[] = [
  { phase: "garbage collection", matches: (l) => /\bGC\b/.test(l) },
  { phase: "getComputedStyle", matches: (l) => l.startsWith("Window.getComputedStyle") },
  { phase: "computed style property reads", matches: (l) => l.startsWith("CSSStyleDeclaration.") },
  { phase: "getBoundingClientRect", matches: (l) => l.startsWith("Element.getBoundingClientRect") },
  { phase: "accessible names", matches: (l) => l.startsWith("accessibleName") },
  {
    phase: "states and values",
    matches: (l) => l.startsWith("stateWords") || l.startsWith("valueText") || l.startsWith("comboboxValue"),
  },
  { phase: "ref registry", matches: (l) => l.startsWith("refFor") },
  {
    phase: "roles",
    matches: (l) =>
      l.startsWith("roleOf") || l.startsWith("interactiveRole") || l.startsWith("isEditingHost"),
  },
  {
    phase: "DOM navigation, text, attribute names",
    matches: (l) =>
      /^(get (Node|Element|HTML\w+)\.|Element\.(getAttributeNames|hasAttributes)|Node\.)/.test(l),
  },
  {
    phase: "line output",
    matches: (l) =>
      /^(formatElementLine|#emit|#flushText|#appendText|#visitLeafText|assemble|JSON\.stringify)/.test(l),
  },
];
const WALK_LOGIC = "walk logic (visitElement, visit, overlay checks)";

function allThreads(profile: GeckoProfile): Thread[] {
  return [...profile.threads, ...(profile.processes ?? []).flatMap(allThreads)];
}

function phaseOf(labels: string[]): string {
  for (const label of labels) {
    const hit = PHASES.find((p) => p.matches(label));
    if (hit) return hit.phase;
  }
  return WALK_LOGIC;
}

function phaseShares(profile: GeckoProfile): { samples: number; shares: [string, number][] } {
  const thread = allThreads(profile).find((t) => t.stringTable.some((s) => s.startsWith("buildTree")));
  if (!thread) throw new Error("profile-tree: no thread of the profile ran buildTree (was the profiler on?)");
  const { stringTable: strings, frameTable: frames, stackTable: stacks, samples } = thread;
  const labelOf = (frame: number) => strings[frames.data[frame]?.[frames.schema.location ?? 0] ?? 0] ?? "";
  const counts = new Map<string, number>();
  let total = 0;
  for (const sample of samples.data) {
    const labels: string[] = [];
    for (let s = sample[samples.schema.stack ?? 0] ?? null; s !== null; ) {
      const row = stacks.data[s];
      if (!row) break;
      labels.push(labelOf(row[stacks.schema.frame ?? 0] ?? 0));
      s = row[stacks.schema.prefix ?? 0] ?? null;
    }
    if (!labels.some((l) => l.startsWith("buildTree"))) continue;
    total++;
    const phase = phaseOf(labels);
    counts.set(phase, (counts.get(phase) ?? 0) + 1);
  }
  return { samples: total, shares: [...counts].sort((a, b) => b[1] - a[1]) };
}

const REPEAT_BUILD_FUNCTION = `async (count) => {
  for (let i = 0; i < count; i++) await globalThis.__webbrainPage.handle("get_accessibility_tree", { filter: "all" });
}`;

type RealmCall = <T>(fn: string, args: unknown[]) => Promise<T>;

/** Opens `url` in a fresh Firefox, installs the page script in the realm, runs `work`, closes. */
async function inFirefox<T>(
  env: NodeJS.ProcessEnv,
  url: string,
  realmKind: string,
  work: (call: RealmCall) => Promise<T>,
): Promise<T> {
  const firefox = await launchFirefox({ prefs: { "privacy.reduceTimerPrecision": false }, env });
  try {
    const context = await createTab(firefox.client);
    await navigate(firefox.client, context, url);
    const realm = realmKind === "sandbox" ? { context, sandbox: "profile" } : { context };
    await evaluate(firefox.client, realm, await buildPageScript(), { awaitPromise: false });
    return await work((fn, args) => callFunction(firefox.client, realm, fn, args));
  } finally {
    await firefox.close();
  }
}

async function main(): Promise<void> {
  const realmKind = process.argv[2] ?? "sandbox";
  if (realmKind !== "sandbox" && realmKind !== "page") {
    throw new Error(`profile-tree: the realm is "sandbox" or "page", got "${realmKind}"`);
  }
  const builds = Number(process.argv[3] ?? DEFAULT_BUILDS);
  if (!Number.isInteger(builds) || builds < 1)
    throw new Error("profile-tree: builds must be a whole number >= 1");
  const fixtures = await startBenchFixtures();
  const url = fixtures.url(BIG_PAGE_PATH);
  const dir = mkdtempSync(join(tmpdir(), "webbrain-profile-"));
  const profilePath = join(dir, "profile.json");
  try {
    const floor = await inFirefox(process.env, url, realmKind, (call) =>
      call<Row[]>(FLOOR_FUNCTION, [builds]),
    );
    console.log(`${realmKind} realm, generated 5,000-element page, ${builds} rounds:`);
    for (const row of floor)
      console.log(`  ${row.name.padEnd(30)} ${row.min.toFixed(1)} ms (median ${row.median.toFixed(1)})`);
    await inFirefox(
      {
        ...process.env,
        MOZ_PROFILER_STARTUP: "1",
        MOZ_PROFILER_SHUTDOWN: profilePath,
        MOZ_PROFILER_STARTUP_FEATURES: "js",
        MOZ_PROFILER_STARTUP_INTERVAL: PROFILER_INTERVAL_MS,
        MOZ_PROFILER_STARTUP_ENTRIES: PROFILER_ENTRIES,
      },
      url,
      realmKind,
      (call) => call(REPEAT_BUILD_FUNCTION, [builds]),
    );
    let text: string;
    try {
      text = readFileSync(profilePath, "utf8");
    } catch {
      throw new Error(`profile-tree: Firefox wrote no profile to ${profilePath} (is its profiler built in?)`);
    }
    let profile: GeckoProfile;
    try {
      profile = JSON.parse(text) as GeckoProfile;
    } catch {
      throw new Error(
        `profile-tree: the profile is cut short (${text.length} bytes): Firefox was killed while writing it; ` +
          "run again with fewer builds",
      );
    }
    const { samples, shares } = phaseShares(profile);
    console.log(`share of the tree build by phase (${samples} profiler samples inside buildTree):`);
    for (const [phase, count] of shares)
      console.log(`  ${((100 * count) / samples).toFixed(1).padStart(5)}%  ${phase}`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
    await fixtures.close();
  }
}

await main();
