/**
 * Recording a person: what they do on the page (clicks, typing, choices in a select) reported as
 * RecordedAction objects (@webbrain/protocol recording.ts), each with the tree at that moment as
 * nodes and the target's ref in it, so the agent describes the target with replay's own code.
 *
 * Invariants:
 * - Only trusted events count: what the page's scripts dispatch is not the person.
 * - Typing into a field is one `type` action with the field's final text, reported when the
 *   person leaves it (change, a click elsewhere, Enter, a submit, the page going away).
 * - A secret field's (secret-field.ts) text never leaves the page: `secret: true`, value "".
 * - Listeners are on the realm's window in the capture phase, so a page that stops an event's
 *   propagation does not hide it from the recording; only the end shortcut is kept from the page.
 */
import type { RecordedAction, TreeNode } from "@webbrain/protocol";
import { composedParent, isElement, isInput, isSelect, isTextArea } from "./dom-realm.js";
import { RefRegistry } from "./ref-registry.js";
import { isSecretField } from "./secret-field.js";
import { buildTree } from "./tree-builder.js";

/** Input types a click acts on, not text typed into. */
const CLICKED_INPUT_TYPES: ReadonlySet<string> = new Set([
  "checkbox",
  "radio",
  "button",
  "submit",
  "reset",
  "image",
  "file",
  "range",
  "color",
  "hidden",
]);

/** The recording's sink: one JSON text of a RecordedAction per call (a BiDi channel, a port). */
export type RecordingSink = (actionJson: string) => void;

function isTypedField(el: Element): boolean {
  if (isInput(el)) return !CLICKED_INPUT_TYPES.has(el.type);
  return isTextArea(el) || (el as HTMLElement).isContentEditable === true;
}

function typedText(el: Element): string {
  if (isInput(el) || isTextArea(el)) return el.value;
  return el.textContent ?? "";
}

function isEndShortcut(event: KeyboardEvent): boolean {
  return event.ctrlKey && event.altKey && !event.shiftKey && event.key.toLowerCase() === "s";
}

/** The element an event is about, through shadow roots (composedPath's first element). */
function eventElement(event: Event): Element | undefined {
  const first = event.composedPath()[0] as Node | undefined;
  const node = first ?? (event.target as Node | null);
  if (!node) return undefined;
  return isElement(node) ? node : ((composedParent(node) as Element | null) ?? undefined);
}

/**
 * Starts reporting what the person does in `win`'s documents; answers the function that stops.
 * The recorder keeps a ref registry of its own: its refs only pair a tree with an element.
 */
export function startRecording(win: Window, send: RecordingSink): () => void {
  const registry = new RefRegistry();
  let typing: Element | undefined;
  /** The element clicked in this task (a submit it starts is not a second action). */
  let clickedNow: Element | undefined;
  /** A label's control, whose click the label's own click already reported. */
  let viaLabel: Element | undefined;

  const emit = (action: RecordedAction): void => send(JSON.stringify(action));
  const atElement = (el: Element): { url: string; nodes: TreeNode[]; ref: string } | undefined => {
    const doc = el.ownerDocument;
    const { refNames, nodes = [] } = buildTree(doc, registry, { filter: "all", nodes: true });
    for (let node: Node | null = el; node; node = composedParent(node)) {
      if (!isElement(node)) continue;
      const ref = registry.peek(node);
      if (ref !== undefined && Object.hasOwn(refNames, String(ref))) {
        return { url: doc.location.href, nodes, ref: String(ref) };
      }
    }
    return undefined;
  };
  const flushTyping = (): void => {
    const field = typing;
    typing = undefined;
    if (!field) return;
    const at = atElement(field);
    if (!at) return;
    if (isSecretField(field)) emit({ kind: "type", value: "", secret: true, ...at });
    else emit({ kind: "type", value: typedText(field), ...at });
  };
  const inThisTask = (set: (el: Element | undefined) => void, el: Element): void => {
    set(el);
    // Cleared once the event's task is over: the label's click on its control and a click's
    // submit run inside the same task.
    win.setTimeout(() => set(undefined), 0);
  };

  const onInput = (event: Event): void => {
    const el = eventElement(event);
    if (!event.isTrusted || !el || !isTypedField(el)) return;
    if (typing && typing !== el) flushTyping();
    typing = el;
  };
  const onChange = (event: Event): void => {
    const el = eventElement(event);
    if (!event.isTrusted || !el) return;
    if (isSelect(el)) {
      flushTyping();
      const at = atElement(el);
      const label = Array.from(el.selectedOptions)
        .map((option) => option.label || option.text)
        .join(", ");
      if (at) emit({ kind: "choose", value: label, ...at });
    } else if (el === typing) {
      flushTyping();
    }
  };
  const onClick = (event: MouseEvent): void => {
    let el = eventElement(event);
    if (!event.isTrusted || !el || event.button !== 0) return;
    if (viaLabel && (el === viaLabel || viaLabel.contains(el))) return;
    const label = el.closest("label");
    const control = label?.control ?? undefined;
    if (control && control !== el) {
      el = control;
      inThisTask((v) => (viaLabel = v), control);
    }
    // A click into a text field or a select only focuses it: its typing or choice is the action.
    if (isTypedField(el) || isSelect(el)) return;
    flushTyping();
    const at = atElement(el);
    if (!at) return;
    inThisTask((v) => (clickedNow = v), el);
    emit({ kind: "click", ...at });
  };
  const onSubmit = (event: SubmitEvent): void => {
    if (!event.isTrusted) return;
    flushTyping();
    const submitter = event.submitter;
    if (!submitter || submitter === clickedNow) return;
    const at = atElement(submitter);
    if (at) emit({ kind: "click", ...at });
  };
  const onKeydown = (event: KeyboardEvent): void => {
    if (!event.isTrusted) return;
    if (isEndShortcut(event)) {
      event.preventDefault();
      event.stopImmediatePropagation();
      flushTyping();
      emit({ kind: "end" });
      return;
    }
    // Enter may submit the form: the text typed so far comes first.
    if (event.key === "Enter" && typing && !isTextArea(typing)) flushTyping();
  };
  const onPagehide = (): void => flushTyping();

  const options = { capture: true } as const;
  win.addEventListener("input", onInput, options);
  win.addEventListener("change", onChange, options);
  win.addEventListener("click", onClick, options);
  win.addEventListener("submit", onSubmit, options);
  win.addEventListener("keydown", onKeydown, options);
  win.addEventListener("pagehide", onPagehide, options);
  return () => {
    flushTyping();
    win.removeEventListener("input", onInput, options);
    win.removeEventListener("change", onChange, options);
    win.removeEventListener("click", onClick, options);
    win.removeEventListener("submit", onSubmit, options);
    win.removeEventListener("keydown", onKeydown, options);
    win.removeEventListener("pagehide", onPagehide, options);
  };
}
