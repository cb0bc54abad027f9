/**
 * Test glue: loads a fixture in a tab, injects the built page script into a BiDi sandbox realm
 * (as the runner does) and calls `handle(action, params)` there. Resolve plans are pressed with
 * trusted `input.performActions`, then their verify call is run, as the runner helper will.
 */
import { type BidiClient, evaluate, navigate, performActions } from "@webbrain/bidi";
import { type PageMeta, type PageRunnerData, pageResultOf } from "@webbrain/protocol";
import {
  type FirefoxHarness,
  type FixtureServer,
  type FixtureServerOptions,
  startFixtureServer,
  useFirefox,
} from "@webbrain/testkit";
import { afterAll, beforeAll, expect } from "vitest";
import { buildPageScript, buildRunnerRealmScript } from "../src/bundle.js";
import type { PlanStep } from "../src/index.js";
import { pressPlan } from "../src/input-plan.js";
import { NODE_MARKER, pageCallExpression } from "../src/runner-realm/realm-protocol.js";

export const SANDBOX = "webbrain";

/**
 * A page answer as tests read it: the PageResult a port makes of it (`success`, `error`, `code`,
 * the details' fields beside them, `meta`), and the `runner` part the port keeps for itself.
 */
export interface PageView {
  success: boolean;
  error?: string;
  code?: string;
  meta?: PageMeta;
  runner?: PageRunnerData;
  [field: string]: unknown;
}

/** The view of a page answer (see PageView). */
export function viewOf(answer: unknown): PageView {
  const runner = (answer as { runner?: PageRunnerData } | null)?.runner;
  return { ...pageResultOf(answer), ...(runner ? { runner } : {}) };
}

/** Clicks a ref as the runner does (resolve, trusted press, verify); the test fails when it did not work. */
export async function clickRef(page: PageSession, ref: number): Promise<void> {
  const done = await page.runResolved(await page.call("click_ax", { ref_id: ref, mode: "resolve" }));
  expect(done.success, JSON.stringify(done)).toBe(true);
}

export interface SharedNode {
  type: "node";
  sharedId: string;
}

export class PageSession {
  readonly client: BidiClient;
  readonly context: string;

  constructor(client: BidiClient, context: string) {
    this.client = client;
    this.context = context;
  }

  get target() {
    return { context: this.context, sandbox: SANDBOX };
  }

  async goto(url: string): Promise<void> {
    await navigate(this.client, this.context, url);
    await this.inject();
  }

  /** Installs what the runner installs, in its order: the runner's realm code, then the page layer. */
  async inject(): Promise<void> {
    const script = `${await buildRunnerRealmScript()}\n${await buildPageScript()}`;
    await evaluate(this.client, this.target, script, { awaitPromise: false });
  }

  /**
   * Calls an action through the door production uses: `__webbrainCall`, the answer as JSON text,
   * DOM nodes it holds (the resolved `runner.element`) cut out and sent after it as handles, as
   * the runner's upload path asks for them; answers its view (PageView).
   */
  async call<T extends PageView = PageView>(
    action: string,
    params: Record<string, unknown> = {},
  ): Promise<T> {
    const result = await this.client.send("script.evaluate", {
      expression: pageCallExpression(action, JSON.stringify(params), true, false),
      target: this.target,
      awaitPromise: true,
      resultOwnership: "none",
      serializationOptions: { maxDomDepth: 0, includeShadowTree: "all" },
    });
    if (result.type === "exception") throw new Error(`${action} threw: ${result.exceptionDetails.text}`);
    const packed = result.result;
    if (packed.type === "string") return viewOf(JSON.parse(packed.value)) as T;
    const [json, ...nodes] = packed.type === "array" ? (packed.value ?? []) : [];
    if (json?.type !== "string")
      throw new Error(`${action}: the page call answered ${JSON.stringify(packed)}`);
    return viewOf(
      JSON.parse(json.value, (_key, value: unknown) => {
        const index = (value as { [NODE_MARKER]?: unknown } | null)?.[NODE_MARKER];
        return typeof index === "number" ? nodes[index] : value;
      }),
    ) as T;
  }

  /** Evaluates in the page's own realm (for reading fixture state the page script keeps). */
  async page<T>(expression: string): Promise<T> {
    return evaluate<T>(this.client, this.context, expression);
  }

  async tree(params: Record<string, unknown> = {}): Promise<string> {
    const result = await this.call("get_accessibility_tree", params);
    if (!result.success) throw new Error(`tree failed: ${result.error}`);
    return result.tree as string;
  }

  /** The ref printed on the first tree line containing `fragment`. */
  async ref(fragment: string, params: Record<string, unknown> = {}): Promise<number> {
    const tree = await this.tree(params);
    const line = tree.split("\n").find((l) => l.includes(fragment));
    const match = line ? /\[(\d+)\]/.exec(line) : null;
    if (!match?.[1]) throw new Error(`no ref line contains ${JSON.stringify(fragment)} in:\n${tree}`);
    return Number(match[1]);
  }

  /** Runs a resolve result's plan with trusted input, then its verify call(s). */
  async runResolved(result: PageView): Promise<PageView> {
    let current = result;
    for (let hops = 0; hops < 4; hops++) {
      const plan = current.runner?.plan;
      if (!current.success || !plan) return current;
      await this.perform(plan);
      const verify = current.runner?.verify;
      if (!verify) return current;
      current = await this.call(verify.action, verify.params);
    }
    return current;
  }

  /** Presses a plan exactly as the runner does (@webbrain/page/input-plan), without Stop. */
  async perform(plan: PlanStep[]): Promise<void> {
    await pressPlan(plan, {
      perform: (actions) => performActions(this.client, this.context, actions),
      pause: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
    });
  }
}

export interface PageFixtures {
  readonly firefox: FirefoxHarness;
  /** The file's fixture server (available inside tests and hooks). */
  readonly fixtures: FixtureServer;
  /** A fresh tab on a fixture page, with the page script ready to call. */
  open(path: string): Promise<PageSession>;
}

/**
 * One Firefox and one fixture server per test file, registered as vitest hooks: call at the top
 * of a test file. `serverOptions` runs in beforeAll (e.g. to build a bundle the server routes).
 */
export function usePageFixtures(serverOptions?: () => Promise<FixtureServerOptions>): PageFixtures {
  const firefox = useFirefox();
  let server: FixtureServer | undefined;
  beforeAll(async () => {
    server = await startFixtureServer(await serverOptions?.());
  });
  afterAll(async () => {
    await server?.close();
  });
  const fixtures = (): FixtureServer => {
    if (!server) throw new Error("the fixture server starts in beforeAll; use it inside tests or hooks");
    return server;
  };
  return {
    firefox,
    get fixtures() {
      return fixtures();
    },
    async open(path) {
      const session = new PageSession(firefox.client, await firefox.newTab());
      await session.goto(fixtures().url(path));
      return session;
    },
  };
}
