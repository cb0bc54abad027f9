/**
 * The floor of a tree build (issue 12): the walk plus the style and layout reads any tree must
 * make, done alone in walk order in the same realm (getComputedStyle and display of every
 * element, cursor outside controls, visibility, the box of blocks and controls, position of
 * blocks for overlays). A build is judged by its ratio to this floor measured in the same run.
 *
 * Why CPU time: on this shared 2-core machine a content process is preempted often, and
 * wall-clock times of one build swing 2x between rounds. The CPU time Firefox spends (all its
 * processes and threads, from the scheduler's counts in /proc: cpu-time.ts) is close to the
 * work done; each realm call runs a batch of floors or builds of about BATCH_TARGET_MS.
 *
 * Invariants:
 * - Floor batches and build batches alternate (which goes first alternates too), so load, GC
 *   and JIT state hit both alike; the in-page wall time (performance.now()) is kept beside.
 * - The ratio is the median of the per-round ratios (build batch / floor batch, neighbours in
 *   time), the spread their quartiles: one round hit by a GC or a burst of load moves neither.
 * - Needs full timer precision (privacy.reduceTimerPrecision off) for the in-page times.
 */
import { groupCpuMs } from "./cpu-time.js";

/**
 * `makeFloorWalk()` in the realm: a `walk(parent, step)` whose step 0..5 adds one kind of read
 * (walk only, + getComputedStyle/display, + cursor, + visibility, + rect, + position: the floor).
 */
export const FLOOR_WALK_SOURCE = `() => {
  const get = (proto, name) => Object.getOwnPropertyDescriptor(proto, name).get;
  const firstChild = get(Node.prototype, "firstChild"), nextSibling = get(Node.prototype, "nextSibling");
  const nodeType = get(Node.prototype, "nodeType"), localName = get(Element.prototype, "localName");
  const width = get(DOMRectReadOnly.prototype, "width"), height = get(DOMRectReadOnly.prototype, "height");
  const value = CSSStyleDeclaration.prototype.getPropertyValue, rectOf = Element.prototype.getBoundingClientRect;
  const styleOf = window.getComputedStyle;
  const inline = new Set(["inline", "inline-block", "inline-flex", "inline-grid", "contents", "table-cell"]);
  const controls = new Set(["a", "input", "button"]);
  const walk = (parent, step) => {
    for (let node = firstChild.call(parent); node; node = nextSibling.call(node)) {
      if (nodeType.call(node) !== 1) continue;
      const tag = localName.call(node);
      if (step >= 1) {
        const style = styleOf.call(window, node);
        const display = value.call(style, "display");
        if (display === "none") continue;
        const block = !inline.has(display);
        if (step >= 2 && !controls.has(tag)) value.call(style, "cursor");
        if (step >= 3) value.call(style, "visibility");
        if (step >= 4 && (block || controls.has(tag))) { const r = rectOf.call(node); width.call(r); height.call(r); }
        if (step >= 5 && block) value.call(style, "position");
      }
      walk(node, step);
    }
  };
  return walk;
}`;

/** The step of FLOOR_WALK_SOURCE's walk that is the floor. */
export const FLOOR_STEP = 5;

/** Installs the floor walk in the realm once, as `globalThis.__webbrainFloorWalk`. */
const INSTALL_FLOOR_FUNCTION = `() => { globalThis.__webbrainFloorWalk ??= (${FLOOR_WALK_SOURCE})(); }`;

/**
 * Realm function `(part, reps) => ms`: `reps` floor walks or whole `all` tree builds (the page
 * layer's handle, as callers run it) back to back; answers the in-page wall time.
 */
const BATCH_FUNCTION = `async (part, reps) => {
  const started = performance.now();
  for (let i = 0; i < reps; i++) {
    if (part === "build") await globalThis.__webbrainPage.handle("get_accessibility_tree", { filter: "all" });
    else globalThis.__webbrainFloorWalk(document.body, ${FLOOR_STEP});
  }
  return performance.now() - started;
}`;

/** CPU time a batch should take: long beside the cost of one BiDi call (~1 ms). */
const BATCH_TARGET_MS = 200;
const MAX_REPS = 500;
const WARMUP_ROUNDS = 2;

/** Calls a function in the realm that holds the page layer. */
export type RealmCall = <T>(fn: string, args: unknown[]) => Promise<T>;

export interface FloorRatio {
  /** CPU ms per build and per floor walk (totals over all rounds / repetitions). */
  buildCpuMs: number;
  floorCpuMs: number;
  /** Median of the per-round CPU ratios build/floor. */
  ratio: number;
  /** Quartiles of the per-round CPU ratios. */
  low: number;
  high: number;
  /** Same ratio from in-page wall time (medians), for comparison. */
  wallRatio: number;
  reps: number;
}

function quantile(values: number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? Number.NaN;
}

/** Build vs floor in the realm `call` reaches; `pid` leads Firefox's process group. */
export async function measureFloorRatio(call: RealmCall, pid: number, rounds: number): Promise<FloorRatio> {
  await call(INSTALL_FLOOR_FUNCTION, []);
  // Warm-up, and the batch size: enough floor walks to take BATCH_TARGET_MS.
  await call(BATCH_FUNCTION, ["build", 1]);
  let floorMs = Number.POSITIVE_INFINITY;
  for (let i = 0; i < 3; i++) floorMs = Math.min(floorMs, await call<number>(BATCH_FUNCTION, ["floor", 1]));
  const reps = Math.min(MAX_REPS, Math.max(1, Math.ceil(BATCH_TARGET_MS / Math.max(floorMs, 0.01))));
  // Uncounted rounds first: the first builds run before the JIT has compiled the walk.
  for (let i = 0; i < WARMUP_ROUNDS; i++) {
    await call(BATCH_FUNCTION, ["floor", reps]);
    await call(BATCH_FUNCTION, ["build", reps]);
  }
  const cpu = { build: [] as number[], floor: [] as number[] };
  const wall = { build: [] as number[], floor: [] as number[] };
  for (let round = 0; round < rounds; round++) {
    const order = round % 2 === 0 ? (["floor", "build"] as const) : (["build", "floor"] as const);
    for (const part of order) {
      const before = groupCpuMs(pid) ?? Number.NaN;
      const ms = await call<number>(BATCH_FUNCTION, [part, reps]);
      cpu[part].push((groupCpuMs(pid) ?? Number.NaN) - before);
      wall[part].push(ms);
    }
  }
  const sum = (values: number[]) => values.reduce((a, b) => a + b, 0);
  const ratios = cpu.build.map((b, i) => b / (cpu.floor[i] ?? Number.NaN));
  return {
    buildCpuMs: sum(cpu.build) / (rounds * reps),
    floorCpuMs: sum(cpu.floor) / (rounds * reps),
    ratio: quantile(ratios, 0.5),
    low: quantile(ratios, 0.25),
    high: quantile(ratios, 0.75),
    wallRatio: quantile(wall.build, 0.5) / quantile(wall.floor, 0.5),
    reps,
  };
}

export function showFloorRatio(r: FloorRatio): string {
  return (
    `${r.ratio.toFixed(2)}x [${r.low.toFixed(2)}-${r.high.toFixed(2)}] ` +
    `cpu ${r.buildCpuMs.toFixed(1)}/${r.floorCpuMs.toFixed(1)} ms, wall ${r.wallRatio.toFixed(2)}x`
  );
}
