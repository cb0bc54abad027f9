/**
 * What the page layer's recorder (@webbrain/page recorder.ts) reports while a person works on a
 * page, and what @webbrain/agent's workflow-recording.ts turns into workflow steps.
 *
 * Each action on an element carries the tree the page layer built at that moment, as nodes
 * (tree-nodes.ts), and the ref the element had in it: the agent describes the target from those
 * nodes with the same code replay uses to find it again (role, name, enclosing areas), so a
 * recorded step and a replayed one agree on what the element is.
 *
 * Invariant: a secret field's value (password, one-time code, card number) never leaves the
 * page: its `type` action has `secret: true` and an empty `value`.
 */

import type { TreeNode } from "./tree-nodes.js";

export interface RecordedElementAction {
  /** The page the action happened on. */
  url: string;
  /** The tree (filter "all") when the action happened, as nodes; `ref` is one of their refs. */
  nodes: TreeNode[];
  ref: string;
}

export type RecordedAction =
  | ({ kind: "click" } & RecordedElementAction)
  /** A field's text once the person finished typing into it (one per field and visit). */
  | ({ kind: "type"; value: string; secret?: true } & RecordedElementAction)
  /** An option picked in a native select (value: the option's label). */
  | ({ kind: "choose"; value: string } & RecordedElementAction)
  /** The person asked to end the recording (RECORDING_END_SHORTCUT). */
  | { kind: "end" };

/** The keys that end a recording from inside the page, as a person reads them. */
export const RECORDING_END_SHORTCUT = "Ctrl+Alt+S";
