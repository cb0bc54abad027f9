/**
 * The words the tools' `details` schemas are written in: what results are made of (an element as
 * the model sees it, an effect report, a box), and what a port adds to a page tool's result
 * (PORT_ADDED). Named once so a family file's `details` reads as the result's shape.
 *
 * A tool's `details` is what its result carries besides `success` (and `error` on a failure):
 * what the model reads and what code reads (the agent's guards, traces, `webbrain exec`). A page
 * tool's is what the page layer's action returns (checked by tsc against it) plus what the ports
 * add; the tree's bookkeeping is `meta`, not details (page-answer.ts).
 */
import { type Static, type TProperties, Type } from "typebox";

const opt = Type.Optional;

/** An element as the tree prints it: its ref, role and name. */
export const ElementSummary = Type.Object({
  ref_id: Type.Number(),
  role: Type.String(),
  name: Type.String(),
});

/** What an action changed on the page (focus, value, checked, expanded, dialogs, the URL...). */
export const EffectReport = Type.Object({ changed: Type.Boolean(), changes: Type.Array(Type.String()) });

/** A box in CSS pixels of the viewport. */
export const Rect = Type.Object({
  x: Type.Number(),
  y: Type.Number(),
  width: Type.Number(),
  height: Type.Number(),
});

/** A box by its edges (the recipient guard's probe). */
export const Edges = Type.Object({
  left: Type.Number(),
  top: Type.Number(),
  right: Type.Number(),
  bottom: Type.Number(),
});

/** A download as a port reports it (list_downloads, download_files, a click that downloaded). */
export const DownloadInfo = Type.Object({
  id: Type.String(),
  url: Type.String(),
  filename: Type.String(),
  mime: opt(Type.String()),
  bytes: opt(Type.Number()),
  state: Type.Enum(["in_progress", "complete", "interrupted"]),
  startTime: opt(Type.String()),
});

/** What typing answers (type_ax, type_text, set_field without submit, check_value). */
export const TYPED = {
  /** The field holds exactly what was asked, read back. */
  verified: opt(Type.Boolean()),
  /** The field took the text but shows it reformatted (a mask): `value` is what it holds. */
  reformatted: opt(Type.Boolean()),
  value: opt(Type.String()),
  target: opt(ElementSummary),
  /** How the text went in: a setter, insertText, a select's option, a toggle. */
  method: opt(Type.String()),
  /** The ref named a label or wrapper: the field typed into instead. */
  retargeted_to: opt(ElementSummary),
  /** A secret field (password): its value is shown masked. */
  secret: opt(Type.Literal(true)),
  note: opt(Type.String()),
};

/** A download an action started, as both ports report it (its file, once it ended). */
export const DownloadReport = Type.Object({
  filename: Type.String(),
  url: Type.String(),
  status: Type.Enum(["complete", "canceled", "in_progress"]),
  bytes: opt(Type.Number()),
  path: opt(Type.String()),
});
export type DownloadReport = Static<typeof DownloadReport>;

/** A tab (or popup) an action opened, as both ports report it. */
export const NewTabReport = Type.Object({ tab_id: Type.String(), url: Type.String() });
export type NewTabReport = Static<typeof NewTabReport>;

/**
 * What a port adds to a page tool's result: dialogs the action opened (answered at once),
 * downloads and tabs it started, popups the blocker refused; for trusted input, that it was
 * trusted and, when the press left the page, where the tab went.
 */
export const PORT_ADDED = {
  dialogs: opt(Type.Array(Type.String())),
  downloads: opt(Type.Array(DownloadReport)),
  new_tabs: opt(Type.Array(NewTabReport)),
  popups_blocked: opt(Type.Number()),
  trusted: opt(Type.Boolean()),
  navigated: opt(Type.Boolean()),
  url: opt(Type.String()),
};

/** A page tool's details: the page layer's fields and what a port adds (PORT_ADDED). */
export function pageDetails<const Properties extends TProperties>(properties: Properties) {
  return Type.Object({ ...PORT_ADDED, ...properties });
}

/** Where a navigation left the tab. */
export const NAVIGATED = Type.Object({ url: Type.String(), title: Type.String() });

/** A result the agent wrote itself (done, clarify, scheduling): what it said, as the model reads it. */
export const AGENT_SAID = Type.Object({ message: Type.String() });
