/**
 * `webbrain record`'s line to the page: the page layer's recorder (@webbrain/page recorder.ts)
 * started in the sandbox of every new document by a preload script, reporting over a BiDi
 * `script.message` channel, and the tab's navigations, fed into a WorkflowRecording.
 *
 * Invariants:
 * - Only what the page layer reports becomes a step; a secret field's text never reaches here.
 * - Every document navigation of the tab goes to the recording, which tells a click's from the
 *   person's own (WorkflowRecording.navigationStarted).
 * - `ended` resolves once: the person pressed the end shortcut in the page, or closed the tab.
 * - Events come from the port's browsing-context model (its tab's `navigation` and `closed`, and
 *   the `script.message`s of its own contexts); nothing here subscribes to the client.
 */

import type { WorkflowRecording } from "@webbrain/agent";
import type { BidiClient } from "@webbrain/bidi";
import type { RecordedAction } from "@webbrain/protocol";
import type { BrowsingContextTree } from "../browser/browsing-context-tree.js";
import { PAGE_SANDBOX } from "../port/page-script-channel.js";

/** The channel the recorders of a recording's documents report on. */
const RECORDING_CHANNEL = "webbrain-recording";
/** Runs in the sandbox of every new document, after the page layer (installed first). */
const START_RECORDER = "(send) => { globalThis.__webbrainPage?.record(send); }";

export type RecordingEnd = "shortcut" | "tab closed";

export class PersonRecording {
  readonly #client: BidiClient;
  readonly #contexts: BrowsingContextTree;
  readonly #tabId: string;
  readonly #recording: WorkflowRecording;
  readonly #onStep: (line: string) => void;
  readonly #removers: (() => void)[] = [];
  #preloadId: string | undefined;
  #end: ((how: RecordingEnd) => void) | undefined;
  readonly ended: Promise<RecordingEnd>;

  constructor(
    client: BidiClient,
    contexts: BrowsingContextTree,
    tabId: string,
    recording: WorkflowRecording,
    onStep: (line: string) => void,
  ) {
    this.#client = client;
    this.#contexts = contexts;
    this.#tabId = tabId;
    this.#recording = recording;
    this.#onStep = onStep;
    this.ended = new Promise((resolve) => (this.#end = resolve));
  }

  /** Starts the recorder in every document created from now on (open the start page after). */
  async install(): Promise<void> {
    const tab = this.#contexts.get(this.#tabId);
    if (!tab || tab.closed) {
      this.#end?.("tab closed");
      return;
    }
    this.#removers.push(
      this.#contexts.bidiEvents.on("script.message", (message) => {
        if (message.channel !== RECORDING_CHANNEL || message.data.type !== "string") return;
        this.#take(JSON.parse(message.data.value) as RecordedAction);
      }),
      tab.on("closed", () => this.#end?.("tab closed")),
    );
    const result = await this.#client.send("script.addPreloadScript", {
      functionDeclaration: START_RECORDER,
      arguments: [{ type: "channel", value: { channel: RECORDING_CHANNEL } }],
      sandbox: PAGE_SANDBOX,
    });
    this.#preloadId = result.script;
  }

  /** Follows the tab's navigations from now on (after the start page has opened). */
  followNavigations(): void {
    const tab = this.#contexts.get(this.#tabId);
    if (!tab) return;
    this.#removers.push(
      tab.on("navigation", ({ url }) => {
        if (!url) return;
        const line = this.#recording.navigationStarted(url);
        if (line) this.#onStep(`step ${this.#recording.steps}: ${line}`);
      }),
    );
  }

  /** Stops listening and starts the recorder in no new document. */
  async dispose(): Promise<void> {
    for (const remove of this.#removers.splice(0)) remove();
    const script = this.#preloadId;
    this.#preloadId = undefined;
    if (script && !this.#client.closed)
      await this.#client.send("script.removePreloadScript", { script }).catch(() => {});
  }

  #take(action: RecordedAction): void {
    if (action.kind === "end") {
      this.#end?.("shortcut");
      return;
    }
    const before = this.#recording.steps;
    const line = this.#recording.add(action);
    if (line)
      this.#onStep(
        `step ${this.#recording.steps}${this.#recording.steps === before ? " (again)" : ""}: ${line}`,
      );
  }
}
