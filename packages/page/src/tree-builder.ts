/**
 * The accessibility tree: one walk of the composed DOM (open shadow roots and same-origin
 * iframes in place) that prints one line per meaningful node.
 *
 * Invariants:
 * - One pass, O(elements): every element is styled and measured at most once; names use
 *   bounded text reads; ref lookups are WeakMap hits.
 * - Lines: two spaces of indent per printed ancestor; `[ref] role "name" value="..." states`
 *   for elements that take actions, `role "name"` for structure, bare text for prose.
 * - Overlays (open dialogs, high stacked layers) are printed first, once, and not in place.
 * - A budget cuts whole lines and ends the tree with one marker line that says so.
 * - The walk itself is bounded (TREE_WALK_LIMITS): past so many elements or so much time it
 *   stops and says so in a last line, and subtrees nested deeper than a limit are skipped, so a
 *   page that grows without end (or nests without end) answers within the page call's bound.
 *
 * Longer than the other modules on purpose: the printing rules share one pass and its state
 * (pending text, overlay sinks, inherited flags); split apart they would hide that invariant.
 */

import {
  isTreeNodeLine,
  linkTreeNodes,
  pickTreeNodes,
  type TreeFilter,
  type TreeNode,
} from "@webbrain/protocol";
import { accessibleName, LabelIndex, NAME_MAX_CHARS, swatchColour } from "./accessible-name.js";
import {
  collapseWhitespace,
  ELEMENT_NODE,
  sameOriginDocument,
  shadowRootOf,
  TEXT_NODE,
  truncate,
} from "./dom-realm.js";
import {
  ARIA_DISABLED_SELECTOR,
  comboboxValueIsItsText,
  formatElementLine,
  interactiveRole,
  isDragHandle,
  isEditingHost,
  SCOPED_VALUE_MAX_CHARS,
  stateWords,
  unnamedHint,
  valueText,
} from "./element-facts.js";
import { findInTree, type TreeQuery } from "./find.js";
import { WiringIndex } from "./listeners.js";
import { nativeDom, type StyleReader, styleReader } from "./native-dom.js";
import { foldTree, type HeadLine, lineText, type Section, sectionEnd, type TreeLine } from "./outline.js";
import { isOverlayContainer } from "./overlays.js";
import type { RefRegistry } from "./ref-registry.js";
import {
  type AttributeNames,
  INTERACTIVE_CONTEXT_ROLES,
  roleOf,
  STRUCTURE_ROLES,
  structureRoleNeedsName,
} from "./roles.js";
import { inferredStates } from "./states.js";
import { boxOf, placeOf, readSvgContent } from "./svg-content.js";
import { clipsEverything, intersectsViewport, ownBoxHidden } from "./visibility.js";

/** Long prose lines are cut here; read_page gives the full text. */
export const TEXT_LINE_MAX_CHARS = 1000;

/**
 * Bounds of one walk. A page can grow its DOM without end: unbounded, a walk of a few million
 * elements outlasts the runner's page call (60 s) and every page tool stalls with it. 100k
 * elements is several times a large real page (a long Wikipedia article has ~30k), and the time
 * bound holds on a slow machine too. Deep nesting is cut before the engine's recursion limit
 * (each DOM level costs this walk three stack frames).
 */
export const TREE_WALK_LIMITS = { maxElements: 100_000, maxMs: 10_000, maxDomDepth: 600 } as const;
/** How many elements are visited between two looks at the clock. */
const CLOCK_EVERY_ELEMENTS = 256;
/** A <select> lists at most this many options, then says how many more it has. */
export const SELECT_OPTIONS_SHOWN = 30;
const INDENT = "  ";
/** What getAttributeNames() would return for an element without attributes (no call made). */
const NO_ATTRIBUTES: readonly string[] = [];
/** Tags a `cursor: pointer` never turns into a ref (their pointer comes from a child control). */
const NO_CURSOR_REF_TAGS: ReadonlySet<string> = new Set(["label", "html", "body"]);
/**
 * Composite widgets: their items are the controls. A ref on the container (a listbox) does not
 * stop its items from getting their own, and an item without a role takes the one its container
 * implies (the items of a jQuery UI menu are plain <li>s).
 */
const ITEM_ROLE_OF_CONTAINER: Readonly<Record<string, string>> = {
  listbox: "option",
  menu: "menuitem",
  menubar: "menuitem",
  tree: "treeitem",
  tablist: "tab",
  grid: "gridcell",
};
/** Roles of fields: a nameless one says nothing of its class (its label is what is missing). */
const FIELD_ROLES: ReadonlySet<string> = new Set([
  "textbox",
  "searchbox",
  "combobox",
  "spinbutton",
  "slider",
]);
/** Tags that hold a composite's items directly. */
const ITEM_TAGS: ReadonlySet<string> = new Set(["li", "div", "a", "span", "td"]);

/**
 * A wrapper around an item that declares its own role (jQuery UI's `<li>` around its
 * `<div role="menuitem">`) is not a second item: inferring one would print every entry twice.
 */
function wrapsItem(el: Element, itemRole: string): boolean {
  const dom = nativeDom();
  for (let child = dom.firstChild(el); child; child = dom.nextSibling(child))
    if (dom.nodeType(child) === 1 && dom.getAttribute(child as Element, "role") === itemRole) return true;
  return false;
}

const SKIPPED_TAGS: ReadonlySet<string> = new Set([
  "script",
  "style",
  "noscript",
  "template",
  "head",
  "meta",
  "link",
  "title",
  "base",
  "datalist",
  "param",
  "source",
  "track",
]);

/** Elements whose box matters even when inline (images, fields, frames, media). */
const REPLACED_TAGS: ReadonlySet<string> = new Set([
  "img",
  "svg",
  "input",
  "select",
  "textarea",
  "button",
  "iframe",
  "frame",
  "video",
  "audio",
  "canvas",
  "object",
  "embed",
]);

const INLINE_DISPLAYS: ReadonlySet<string> = new Set([
  "inline",
  "inline-block",
  "inline-flex",
  "inline-grid",
  "contents",
  "table-cell",
  "ruby",
  "ruby-text",
]);

export interface TreeOptions {
  filter: TreeFilter;
  /** Character budget for the printed tree; undefined prints everything. */
  maxChars?: number;
  /** Scope: print only this element's subtree (a heading: its section). */
  root?: Element;
  /** Answer only the lines that match, each with the part of the page it is in. */
  find?: TreeQuery;
  /** Bounds of the walk; TREE_WALK_LIMITS unless a caller (a test) narrows them. */
  limits?: Partial<typeof TREE_WALK_LIMITS>;
  /** Also answer the element lines as data (`nodes`); off unless code will read them. */
  nodes?: boolean;
}

/** Why a walk stopped before the end of the page. */
export interface WalkCut {
  reason: "elements" | "time";
  /** Elements read before it stopped. */
  elements: number;
}

export interface TreeResult {
  tree: string;
  lines: number;
  chars: number;
  /** Characters the whole tree would have had without a budget. */
  fullChars: number;
  truncated: boolean;
  /** Parts printed as one folded line to fit the budget. */
  folded: number;
  /** Every line of the tree before any budget or fold (what a diff compares). */
  fullLines: string[];
  refs: number;
  /** The name each printed ref was shown with, for code (the agent's submit guard), not the model. */
  refNames: Record<string, string>;
  overlays: number;
  elementsVisited: number;
  /** Set when the walk stopped early (a huge or endlessly growing page). */
  walkCut?: WalkCut;
  /** Subtrees skipped because they nest deeper than maxDomDepth. */
  deepSkipped: number;
  /**
   * With TreeOptions.nodes: the control lines the text shows, as data, with the areas and the
   * headings they sit in and under (placed among all the walk's lines), in printed order. A
   * budget cuts them as it cuts the text, so nodes grow with the text, not the page.
   */
  nodes?: TreeNode[];
}

interface Inherited {
  depth: number;
  /** Text here is already part of an ancestor's printed name. */
  textNamed: boolean;
  /** The name on the nearest printed ancestor's line ("" when none or unnamed). */
  lineName: string;
  /** The role on that line ("" when none). */
  lineRole: string;
  /** Text here is not rendered (own box hidden) or outside the viewport for `visible`. */
  textHidden: boolean;
  /** Inside an element that already has a ref: no `cursor:pointer` refs below it. */
  insideActionable: boolean;
  parentPointer: boolean;
  inOverlay: boolean;
  /** getComputedStyle of the document being walked (an iframe's own window inside it). */
  styleOf: StyleReader;
  /**
   * Some element of this tree scope (document or shadow root) has aria-disabled=true, so a
   * printed element must ask closest(); false lets stateWords skip that per-element search.
   */
  ariaDisabledInScope: boolean;
  /** The view's viewport size, read once per document. */
  viewWidth: number;
  viewHeight: number;
  /** Role a role-less child takes here (a composite container's item role), "" when none. */
  itemRole: string;
}

interface OverlayBlock {
  lines: TreeLine[];
  modal: boolean;
  z: number;
}

class TreeWalk {
  readonly #filter: TreeFilter;
  /** Lines carry their node (TreeOptions.nodes). */
  readonly #keepNodes: boolean;
  readonly #registry: RefRegistry;
  readonly #labels: LabelIndex;
  readonly #wiring: WiringIndex;
  #out: TreeLine[] = [];
  readonly #main: TreeLine[];
  readonly overlays: OverlayBlock[] = [];
  #pendingText = "";
  #pendingDepth = 0;
  readonly #namingParts = new Set<Element>();
  /** The name of the line just printed when it came from the text around it (see #flushText). */
  #contextName: string | undefined;
  refs = 0;
  /** The element a scoped tree (`ref_id`) prints, undefined for the whole page. */
  scopeRoot: Element | undefined;
  readonly refNames: Record<string, string> = {};
  elements = 0;
  /** Set once a walk limit is hit: nothing more is visited. */
  cut: WalkCut | undefined;
  deepSkipped = 0;
  readonly limits: typeof TREE_WALK_LIMITS;
  readonly #deadline: number;
  #domDepth = 0;

  constructor(
    filter: TreeFilter,
    registry: RefRegistry,
    doc: Document,
    limits: Partial<typeof TREE_WALK_LIMITS> = {},
    keepNodes = false,
  ) {
    this.#keepNodes = keepNodes;
    this.limits = { ...TREE_WALK_LIMITS, ...limits };
    this.#deadline = performance.now() + this.limits.maxMs;
    this.#filter = filter;
    this.#registry = registry;
    this.#labels = new LabelIndex(doc);
    this.#wiring = new WiringIndex(doc);
    this.#main = this.#out;
  }

  get mainLines(): TreeLine[] {
    return this.#main;
  }

  /**
   * `shown`: what the line says as data (role as printed, value, states, ref), kept on the line
   * as its node when nodes were asked for.
   */
  #emit(
    depth: number,
    text: string,
    head?: Omit<HeadLine, "text"> & { text?: string },
    shown?: LineFacts,
  ): void {
    this.#flushText();
    this.#contextName = undefined;
    const line = INDENT.repeat(depth) + text;
    if (!head) {
      this.#out.push(line);
      return;
    }
    // The caller's fresh object becomes the line (no spread copy: this runs for every printed line).
    head.text = line;
    if (this.#keepNodes) {
      const facts = shown ?? { role: head.role, states: [] };
      if (isTreeNodeLine(facts.role, facts.ref)) head.node = lineNode(depth, head.name, facts);
    }
    this.#out.push(head as HeadLine);
  }

  /** The elements inside a printed structure line that its aria-labelledby name is made of. */
  #noteNamingParts(el: Element, names: readonly string[]): void {
    if (!names.includes("aria-labelledby")) return;
    const root = el.getRootNode() as Document | ShadowRoot;
    for (const id of (el.getAttribute("aria-labelledby") ?? "").trim().split(/\s+/)) {
      const part = id ? root.getElementById?.(id) : null;
      if (part && part !== el && el.contains(part)) this.#namingParts.add(part);
    }
  }

  #flushText(): void {
    const text = this.#pendingText.trim();
    // The text a checkbox was just named by (its list item's or row's): printed once, as its name.
    if (text && text === this.#contextName) {
      this.#contextName = undefined;
      this.#pendingText = "";
      return;
    }
    if (text) this.#out.push(INDENT.repeat(this.#pendingDepth) + truncate(text, TEXT_LINE_MAX_CHARS));
    this.#pendingText = "";
  }

  #appendText(depth: number, text: string): void {
    if (this.#pendingText && depth !== this.#pendingDepth) this.#flushText();
    this.#pendingDepth = depth;
    this.#pendingText += text;
  }

  finish(): void {
    this.#flushText();
  }

  walkChildren(parent: Node, inh: Inherited): void {
    if (this.#domDepth >= this.limits.maxDomDepth) {
      this.deepSkipped++;
      return;
    }
    const dom = nativeDom();
    this.#domDepth++;
    for (let child = dom.firstChild(parent); child && !this.cut; child = dom.nextSibling(child))
      this.visit(child, inh);
    this.#domDepth--;
  }

  /** Counts one element against the limits; false once the walk must stop. */
  #withinLimits(): boolean {
    if (this.cut) return false;
    this.elements++;
    if (this.elements > this.limits.maxElements) {
      this.cut = { reason: "elements", elements: this.elements - 1 };
    } else if (this.elements % CLOCK_EVERY_ELEMENTS === 0 && performance.now() > this.#deadline) {
      this.cut = { reason: "time", elements: this.elements };
    }
    return !this.cut;
  }

  visit(node: Node, inh: Inherited): void {
    const dom = nativeDom();
    const type = dom.nodeType(node);
    if (type === ELEMENT_NODE) {
      this.visitElement(node as Element, inh, dom.localName(node as Element));
      return;
    }
    if (type === TEXT_NODE) {
      if (inh.textNamed || inh.textHidden || this.#filter === "interactive") return;
      const raw = dom.nodeValue(node) ?? "";
      if (!/\S/.test(raw)) {
        if (this.#pendingText) this.#pendingText += " ";
        return;
      }
      this.#appendText(inh.depth, raw.replace(/\s+/g, " "));
    }
  }

  visitElement(el: Element, inh: Inherited, tag: string = nativeDom().localName(el)): void {
    if (SKIPPED_TAGS.has(tag)) return;
    if (!this.#withinLimits()) return;
    // Every DOM read below may cross a realm wrapper (sandbox/content script): read each fact
    // once, through the native accessors, and attributes only when getAttributeNames() says
    // they exist.
    const dom = nativeDom();
    const names = dom.hasAttributes(el) ? dom.getAttributeNames(el) : NO_ATTRIBUTES;
    // aria-hidden hides decoration, not a control the page wired for clicks (a spinner's arrows).
    if (
      names.length > 0 &&
      names.includes("aria-hidden") &&
      dom.getAttribute(el, "aria-hidden") === "true" &&
      !this.#wiring.isWired(el)
    )
      return;
    const style = inh.styleOf(el);
    const display = dom.getPropertyValue(style, "display");
    if (display === "none") return;
    const contents = display === "contents";
    const block = !INLINE_DISPLAYS.has(display);
    const baseRole = roleOf(el, names, tag);
    // `cursor: pointer` only decides a ref when role and attributes do not, and only where the
    // parent's cursor is not already a pointer; inside an element with a ref it never does.
    // So it is read only when it can decide something (here, or below for the children).
    let pointer: boolean | undefined = inh.insideActionable ? inh.parentPointer : undefined;
    let candidate = interactiveRole(el, baseRole, false, true, names, tag);
    // A plain item of a menu/listbox/tree takes its container's item role and its own ref,
    // unless it only wraps the item: then the wrapper is no control of its own (jQuery UI's menu
    // delegates clicks to, and puts `cursor: pointer` on, the <li> around each `role="menuitem"`).
    const itemWrapper =
      candidate === undefined && inh.itemRole !== "" && baseRole === "" && wrapsItem(el, inh.itemRole);
    if (
      candidate === undefined &&
      inh.itemRole &&
      (baseRole === "" || baseRole === inh.itemRole) &&
      ITEM_TAGS.has(tag) &&
      !itemWrapper
    )
      candidate = inh.itemRole;
    // A label whose checkbox or radio is hidden (a custom-drawn box) is the control a person sees;
    // a label of a control that shows is that control's name, not a control of its own (a
    // listener on it only forwards the click).
    let stateSource: Element = el;
    let labelsShownControl = false;
    if (candidate === undefined && tag === "label") {
      const control = dom.labelControl(el as HTMLLabelElement);
      if (control && toggleDrawsNoBox(control, inh.styleOf)) {
        candidate = nativeDom().inputType(control as HTMLInputElement);
        stateSource = control;
      } else if (control) {
        labelsShownControl = true;
      }
    }
    // Wired by script (a listener, a delegation, a handler property): a control whatever it looks like.
    // A wired list (a jQuery UI sortable) is a list whose items are the controls.
    let byLook = false;
    if (
      candidate === undefined &&
      !itemWrapper &&
      !labelsShownControl &&
      tag !== "html" &&
      tag !== "body" &&
      this.#wiring.isWired(el) &&
      !decorationOfControl(el, inh, baseRole, names)
    ) {
      candidate = baseRole || (tag === "ul" || tag === "ol" ? "list" : "clickable");
      byLook = true;
    }
    // The edge or corner a wired widget is resized by.
    if (
      candidate === undefined &&
      isDragHandle(el, names) &&
      (inh.insideActionable || this.#wiring.isWired(dom.parentElement(el) ?? el))
    )
      candidate = "clickable";
    if (
      candidate === undefined &&
      !itemWrapper &&
      pointer === undefined &&
      !inh.parentPointer &&
      !NO_CURSOR_REF_TAGS.has(tag)
    ) {
      pointer = dom.getPropertyValue(style, "cursor") === "pointer";
      if (pointer) {
        candidate = baseRole || "clickable";
        byLook = true;
      }
    }
    // A panel or title bar that listens for clicks or drags and holds real controls is not one
    // control named by all it holds: its controls are (a "Close" button in a draggable title bar).
    if (byLook && candidate === "clickable" && el.querySelector(REAL_CONTROLS) !== null)
      candidate = undefined;
    // A plain inline element (span, b, em) that prints nothing needs no box: its text is hidden
    // only by visibility (inline boxes cannot be sized to zero or positioned as overlays).
    const needsBox =
      !contents &&
      (block ||
        candidate !== undefined ||
        baseRole !== "" ||
        this.#filter === "visible" ||
        names.includes("contenteditable") ||
        REPLACED_TAGS.has(tag));
    const rect = needsBox ? dom.getBoundingClientRect(el) : undefined;
    const width = rect ? dom.rectWidth(rect) : Number.POSITIVE_INFINITY;
    const height = rect ? dom.rectHeight(rect) : Number.POSITIVE_INFINITY;
    if (rect && clipsEverything(style, width, height)) return;
    // Without a box to check, visibility only hides this element's text, which an ancestor's
    // name already covers (textNamed) or the interactive filter drops: then it is not read.
    const textIrrelevant = inh.textNamed || this.#filter === "interactive";
    const boxHidden = contents || (!needsBox && textIrrelevant) ? false : ownBoxHidden(style, width, height);

    if (
      !inh.inOverlay &&
      rect &&
      block &&
      !boxHidden &&
      isOverlayContainer(el, style, width, height, names, tag)
    ) {
      this.#visitOverlay(el, style, inh);
      return;
    }

    if (block) this.#flushText();
    if ((tag === "td" || tag === "th") && this.#pendingText.trim()) this.#pendingText += " | ";

    const frame = tag === "iframe" || tag === "frame";
    const actionRole = boxHidden ? undefined : candidate;
    const editingHost = actionRole === undefined && !boxHidden && isEditingHost(el, names);
    const role = editingHost ? "textbox" : (actionRole ?? baseRole);
    const inViewport =
      this.#filter !== "visible" ||
      (rect !== undefined && intersectsViewport(rect, inh.viewWidth, inh.viewHeight));

    let printed = false;
    let nameCoversText = false;
    const childInh: Inherited = {
      depth: inh.depth,
      textNamed: inh.textNamed,
      lineName: inh.lineName,
      lineRole: inh.lineRole,
      textHidden:
        boxHidden || (this.#filter === "visible" && !inViewport && !contents)
          ? true
          : contents
            ? inh.textHidden
            : false,
      insideActionable: inh.insideActionable,
      // Set below once it is known whether this element gets a ref.
      parentPointer: false,
      inOverlay: inh.inOverlay,
      styleOf: inh.styleOf,
      ariaDisabledInScope: inh.ariaDisabledInScope,
      viewWidth: inh.viewWidth,
      viewHeight: inh.viewHeight,
      itemRole:
        ITEM_ROLE_OF_CONTAINER[role] ??
        (actionRole === "list"
          ? "listitem"
          : inh.itemRole && (tag === "ul" || tag === "ol")
            ? inh.itemRole
            : ""),
    };

    let named =
      (actionRole !== undefined || editingHost) && inViewport
        ? accessibleName(el, role, this.#labels, names, tag)
        : undefined;
    // The same control printed twice (a native radio inside its role="radio" wrapper): once.
    if (
      named &&
      inh.insideActionable &&
      named.name !== "" &&
      named.name === inh.lineName &&
      role === inh.lineRole
    )
      named = undefined;
    if (named) {
      const { name, source } = named;
      const ref = this.#registry.refFor(el, role, name);
      this.refs++;
      this.refNames[ref] = name;
      const states =
        stateSource === el
          ? stateWords(el, role, names, tag, inh.ariaDisabledInScope)
          : stateWords(
              stateSource,
              role,
              dom.getAttributeNames(stateSource),
              "input",
              inh.ariaDisabledInScope,
            );
      const inferred = inferredStates(el, role, tag, names, states, inh.styleOf);
      for (const word of inferred.words) states.push(word);
      // Scoped to the field itself, its whole value: a cut one is one call from whole.
      const value = valueText(el, role, tag, el === this.scopeRoot ? SCOPED_VALUE_MAX_CHARS : undefined);
      let line = `[${ref}] ${formatElementLine(inferred.role ?? role, name, value, states)}`;
      // A nameless control (an icon wired by script) says what little its markup does.
      if (source === "none" || source === "adjacent" || source === "colour")
        line += unnamedHint(el, tag, names, !FIELD_ROLES.has(role));
      // A drawing area the page listens on (click to place a point): where it is matters.
      if (tag === "svg") line += placeOf(boxOf(el));
      if (frame && !sameOriginDocument(el as HTMLIFrameElement))
        line += ` cross-origin src=${JSON.stringify(frameOrigin(el as HTMLIFrameElement))}`;
      // An anchor: a chunk of a part too big to open at once can start here (see outline.ts).
      this.#emit(
        inh.depth,
        line,
        { el, role, name, anchor: true },
        { role: inferred.role ?? role, value, states, ref },
      );
      if (source === "context") this.#contextName = name;
      printed = true;
      nameCoversText = source === "content" && name.length < NAME_MAX_CHARS;
      // A custom combobox shows its text as value="...": printing it again below says nothing.
      if (value !== undefined && !value.endsWith("…") && comboboxValueIsItsText(el, role, tag, names))
        nameCoversText = true;
      // The items of a composite (a listbox with a ref, a wired list) still get refs of their own.
      childInh.insideActionable = ITEM_ROLE_OF_CONTAINER[role] === undefined && role !== "list";
      childInh.lineName = name;
      childInh.lineRole = role;
    } else if (!boxHidden && inViewport && this.#printsStructure(role, el, tag)) {
      const { name, source } = accessibleName(el, role, this.#labels, names, tag);
      if (role === "heading" && name !== "" && name === inh.lineName) {
        // A heading that repeats the name of the line it sits under (a dialog named by its
        // own heading) tells the model nothing new: no line, and its text is that name.
        if (source === "content" && name.length < NAME_MAX_CHARS) childInh.textNamed = true;
      } else if (name || !structureRoleNeedsName(role)) {
        if (role !== "img" || !inh.textNamed) {
          const states = stateWords(el, role, names, tag, inh.ariaDisabledInScope);
          this.#emit(
            inh.depth,
            formatElementLine(role, name, undefined, states) +
              (name ? "" : unnamedHint(el, tag, names, false)),
            { el, role, name },
            { role, states },
          );
        }
        printed = true;
        nameCoversText = source === "content" && name.length < NAME_MAX_CHARS;
        childInh.lineName = name;
        childInh.lineRole = role;
        if (source === "labelledby") this.#noteNamingParts(el, names);
      }
    } else if (tag === "label" && dom.labelControl(el as HTMLLabelElement)) {
      // The control below prints this text as its name.
      childInh.textNamed = true;
    }
    // A dialog's title bar text that is the dialog's name (aria-labelledby) is printed once, as it.
    if (this.#namingParts.size > 0 && this.#namingParts.has(el)) childInh.textNamed = true;

    // Below an element with a ref the children's parentPointer decides nothing (see above).
    if (childInh.insideActionable && !inh.insideActionable) childInh.parentPointer = pointer ?? false;
    else childInh.parentPointer = pointer ?? dom.getPropertyValue(style, "cursor") === "pointer";
    if (printed) {
      childInh.depth = inh.depth + 1;
      if (nameCoversText) childInh.textNamed = true;
    }

    if (tag === "select") {
      if (printed) this.#printOptions(el as HTMLSelectElement, childInh.depth);
    } else if (frame) {
      const doc = sameOriginDocument(el as HTMLIFrameElement);
      if (doc?.body && doc.defaultView) {
        const frameView = doc.defaultView;
        this.walkChildren(doc.body, {
          ...childInh,
          styleOf: styleReader(frameView),
          ariaDisabledInScope: doc.querySelector(ARIA_DISABLED_SELECTOR) !== null,
          viewWidth: frameView.innerWidth,
          viewHeight: frameView.innerHeight,
          textHidden: false,
          parentPointer: false,
        });
      }
    } else if (tag === "svg") {
      // A drawing's shapes and texts (svg-content.ts); an icon inside a control is not walked.
      if (!inh.insideActionable && !boxHidden && inViewport) this.#visitSvg(el, childInh, printed, pointer);
    } else if (tag !== "textarea" && tag !== "input" && tag !== "img") {
      const shadow = shadowRootOf(el, tag);
      if (shadow) {
        this.walkChildren(shadow, withShadowScope(childInh, shadow));
      } else if (tag === "slot") {
        const assigned = (el as HTMLSlotElement).assignedNodes({ flatten: true });
        if (assigned.length > 0) for (const child of assigned) this.visit(child, childInh);
        else this.walkChildren(el, childInh);
      } else if (dom.firstElementChild(el) === null) {
        // A leaf holds only text: one textContent read instead of a crossing per text node.
        this.#visitLeafText(el, childInh, printed ? undefined : style);
      } else {
        this.walkChildren(el, childInh);
      }
    }
    if (block || printed) this.#flushText();
  }

  #visitSvg(svg: Element, inh: Inherited, printed: boolean, pointer: boolean | undefined): void {
    const content = readSvgContent(svg, {
      styleOf: inh.styleOf,
      isWired: (el) => this.#wiring.isWired(el),
      controlsOnly: this.#filter === "interactive",
      viewport: this.#filter === "visible" ? { width: inh.viewWidth, height: inh.viewHeight } : undefined,
      svgPointer: pointer ?? false,
    });
    if (!content || (content.items.length === 0 && this.#filter === "interactive")) return;
    let depth = inh.depth;
    if (!printed) this.#emit(depth++, content.header);
    for (const item of content.items) {
      const text = formatElementLine(item.kind, item.name, undefined, []) + item.detail;
      if (!item.control) {
        this.#emit(depth + item.depth, text);
        continue;
      }
      const ref = this.#registry.refFor(item.el, item.kind, item.name);
      this.refs++;
      this.refNames[ref] = item.name;
      this.#emit(
        depth + item.depth,
        `[${ref}] ${text}`,
        { el: item.el, role: item.kind, name: item.name, anchor: true },
        { role: item.kind, states: [], ref },
      );
    }
    if (content.omitted > 0) this.#emit(depth, `… ${content.omitted} more shapes not shown`);
  }

  /** `style`: the leaf's own, when it printed no line (an empty one may be a colour swatch). */
  #visitLeafText(el: Element, inh: Inherited, style?: CSSStyleDeclaration): void {
    if (inh.textNamed || inh.textHidden || this.#filter === "interactive") return;
    const raw = nativeDom().textContent(el) ?? "";
    if (!/\S/.test(raw)) {
      if (raw && this.#pendingText) this.#pendingText += " ";
      // Only a chip inside a line of text: boxes of a layout or a picker's parts are not prose.
      const swatch = raw || !style || !this.#pendingText.trim() ? "" : swatchInProse(el, style);
      if (swatch)
        this.#appendText(inh.depth, `${this.#pendingText.endsWith(" ") ? "" : " "}(colour ${swatch})`);
      return;
    }
    this.#appendText(inh.depth, raw.replace(/\s+/g, " "));
  }

  #printsStructure(role: string, el: Element, tag: string): boolean {
    if (!STRUCTURE_ROLES.has(role)) return false;
    if (this.#filter === "interactive")
      return INTERACTIVE_CONTEXT_ROLES.has(role) || role === "dialog" || role === "alertdialog";
    if (role === "img") return tag !== "svg" || el.hasAttribute("aria-label") || el.hasAttribute("role");
    if (role === "table") return el.querySelector(":scope > caption") !== null;
    return true;
  }

  #printOptions(select: HTMLSelectElement, depth: number): void {
    const options = select.options;
    const shown = Math.min(options.length, SELECT_OPTIONS_SHOWN);
    for (let i = 0; i < shown; i++) {
      const option = options[i]!;
      const label = collapseWhitespace(option.label || option.text);
      const states: string[] = [];
      if (option.selected) states.push("selected");
      if (option.disabled) states.push("disabled");
      this.#emit(depth, formatElementLine("option", label, undefined, states));
    }
    if (options.length > shown) this.#emit(depth, `… ${options.length - shown} more options`);
  }

  #visitOverlay(el: Element, style: CSSStyleDeclaration, inh: Inherited): void {
    this.#flushText();
    const saved = this.#out;
    const block: OverlayBlock = {
      lines: [],
      modal: el.getAttribute("aria-modal") === "true" || el.localName === "dialog",
      z: Number.parseInt(style.zIndex, 10) || 0,
    };
    this.overlays.push(block);
    this.#out = block.lines;
    const overlayInh: Inherited = {
      ...inh,
      depth: 0,
      inOverlay: true,
      textNamed: false,
      lineName: "",
      lineRole: "",
      textHidden: false,
    };
    const role = roleOf(el);
    const describes =
      role === "dialog" ||
      role === "alertdialog" ||
      interactiveRole(el, role, false, false) !== undefined ||
      STRUCTURE_ROLES.has(role);
    if (describes) {
      this.visitElement(el, overlayInh);
    } else {
      this.#emit(0, "overlay");
      const shadow = shadowRootOf(el);
      this.walkChildren(shadow ?? el, {
        ...(shadow ? withShadowScope(overlayInh, shadow) : overlayInh),
        depth: 1,
        parentPointer: style.cursor === "pointer",
      });
    }
    this.#flushText();
    this.#out = saved;
    // A backdrop or an empty layer says nothing: drop it rather than print a bare "overlay".
    if (block.lines.length <= (describes ? 0 : 1)) this.overlays.pop();
  }
}

/** Entering a shadow root: closest() from inside it searches that scope's ancestors too. */
function withShadowScope(inh: Inherited, shadow: ShadowRoot): Inherited {
  if (inh.ariaDisabledInScope) return inh;
  return { ...inh, ariaDisabledInScope: shadow.querySelector(ARIA_DISABLED_SELECTOR) !== null };
}

/** What an element line prints besides its name: the role as shown, value, states, ref. */
interface LineFacts {
  role: string;
  value?: string | undefined;
  states: readonly string[];
  ref?: number;
}

/** A line as a node (protocol tree-nodes.ts), with only the fields it has: nodes stay small. */
function lineNode(depth: number, name: string, facts: LineFacts): TreeNode {
  const node: TreeNode = { role: facts.role, name, depth };
  if (facts.ref !== undefined) node.ref = facts.ref;
  if (facts.value !== undefined) node.value = facts.value;
  if (facts.states.length > 0) node.states = [...facts.states];
  return node;
}

/** The nodes of the lines, in printed order (prose, options and other structure lines have none). */
function nodesOf(lines: readonly TreeLine[]): TreeNode[] {
  const nodes: TreeNode[] = [];
  for (const line of lines) if (typeof line !== "string" && line.node) nodes.push(line.node);
  return nodes;
}

/** A control line's ref, as #emit prints it (a fold line and a find match start the same way). */
const PRINTED_REF = /^\s*\[(\d+)\]/gm;

/**
 * The nodes a tree text answers: the controls whose lines it shows, placed among all the walk's
 * lines, with the areas and headings they point at. The shown refs are read from the text this
 * module just printed, so a budget, a fold or a find agree with it.
 */
function nodesShownIn(nodes: readonly TreeNode[], text: string): TreeNode[] {
  const shown = new Set<number>();
  for (const match of text.matchAll(PRINTED_REF)) shown.add(Number(match[1]));
  return pickTreeNodes(linkTreeNodes(nodes), (node) => node.ref !== undefined && shown.has(node.ref));
}

function frameOrigin(frame: HTMLIFrameElement): string {
  try {
    return new URL(frame.src, frame.ownerDocument.baseURI).origin;
  } catch {
    return frame.getAttribute("src") ?? "";
  }
}

export function buildTree(doc: Document, registry: RefRegistry, options: TreeOptions): TreeResult {
  // A whole-page call folds afresh: what earlier folded lines stood for is forgotten, so a
  // control's ref that once started a chunk means only that control again.
  if (!options.root && !options.find) foldedSpans = new WeakMap();
  const view = doc.defaultView ?? window;
  const walk = new TreeWalk(options.filter, registry, doc, options.limits, options.nodes === true);
  walk.scopeRoot = options.root;
  const inh: Inherited = {
    depth: 0,
    textNamed: false,
    lineName: "",
    lineRole: "",
    textHidden: false,
    insideActionable: false,
    parentPointer: false,
    inOverlay: false,
    styleOf: styleReader(view),
    ariaDisabledInScope: doc.querySelector(ARIA_DISABLED_SELECTOR) !== null,
    viewWidth: view.innerWidth,
    viewHeight: view.innerHeight,
    itemRole: "",
  };
  // A heading's part of the page is its section, and a folded line's ref prints what it folded:
  // the whole page is walked, then cut to it.
  const section =
    options.root && (isHeading(options.root) || foldedSpans.has(options.root)) ? options.root : undefined;
  if (options.root && !section) {
    const rootView = options.root.ownerDocument.defaultView ?? view;
    walk.visitElement(options.root, {
      ...inh,
      styleOf: styleReader(rootView),
      // A subtree may sit in a shadow root or frame with ancestors outside it: always ask.
      ariaDisabledInScope: true,
      viewWidth: rootView.innerWidth,
      viewHeight: rootView.innerHeight,
    });
  } else if (doc.body) {
    walk.walkChildren(doc.body, inh);
  }
  walk.finish();

  const overlays = [...walk.overlays].sort((a, b) => Number(b.modal) - Number(a.modal) || b.z - a.z);
  let all: TreeLine[] = [];
  for (const block of overlays) for (const line of block.lines) all.push(line);
  for (const line of walk.mainLines) all.push(line);
  if (section) {
    const start = all.findIndex((line) => typeof line !== "string" && line.el === section);
    all = start < 0 ? [] : all.slice(start, foldedEnd(all, start, foldedSpans.get(section)));
  }
  const nodes = options.nodes === true ? nodesOf(all) : undefined;
  if (options.find) {
    const found = findInTree(all, options.find);
    return withWalkNotes(walk, nodes, {
      tree: found.text,
      lines: found.matches,
      chars: found.text.length,
      fullChars: found.text.length,
      truncated: false,
      folded: 0,
      fullLines: [],
      refs: found.matches,
      refNames: walk.refNames,
      overlays: overlays.length,
      elementsVisited: walk.elements,
      deepSkipped: 0,
    });
  }
  return withWalkNotes(
    walk,
    nodes,
    assemble(all, options.maxChars, registry, {
      refs: walk.refs,
      refNames: walk.refNames,
      overlays: overlays.length,
      elements: walk.elements,
    }),
  );
}

/**
 * A walk that stopped early or skipped deep parts says so in a last line, and counts as
 * truncated: the model knows it saw part of the page and how to see the rest.
 */
function withWalkNotes(walk: TreeWalk, nodes: TreeNode[] | undefined, result: TreeResult): TreeResult {
  const notes: string[] = [];
  if (walk.cut) {
    const why =
      walk.cut.reason === "elements"
        ? `after ${walk.cut.elements} elements`
        : `after ${walk.limits.maxMs / 1000} s (${walk.cut.elements} elements read)`;
    notes.push(
      `… stopped reading the page ${why}: it is very large or keeps growing, so the rest is not shown. ` +
        "Read a part with ref_id, or look for what you need with find.",
    );
  }
  if (walk.deepSkipped > 0) {
    notes.push(
      `… ${walk.deepSkipped} part(s) nested deeper than ${walk.limits.maxDomDepth} levels not shown; pass the ref of the last element shown above one as ref_id to read it.`,
    );
  }
  const out: TreeResult = {
    ...result,
    deepSkipped: walk.deepSkipped,
    ...(walk.cut ? { walkCut: walk.cut } : {}),
    ...(nodes ? { nodes: nodesShownIn(nodes, result.tree) } : {}),
  };
  if (notes.length === 0) return out;
  const tree = [result.tree, ...notes].filter((text) => text !== "").join("\n");
  return { ...out, tree, chars: tree.length, lines: result.lines + notes.length, truncated: true };
}

function assemble(
  treeLines: TreeLine[],
  budget: number | undefined,
  registry: RefRegistry,
  counts: { refs: number; refNames: Record<string, string>; overlays: number; elements: number },
): TreeResult {
  const lines = treeLines.map(lineText);
  const fullText = lines.join("\n");
  const fullChars = fullText.length;
  const base = {
    fullChars,
    refs: counts.refs,
    refNames: counts.refNames,
    overlays: counts.overlays,
    elementsVisited: counts.elements,
    deepSkipped: 0,
  };
  if (budget === undefined || fullChars <= budget) {
    return {
      tree: fullText,
      lines: lines.length,
      chars: fullChars,
      truncated: false,
      folded: 0,
      fullLines: lines,
      ...base,
    };
  }
  const outline = foldTree(treeLines, budget, (part: Section, last?: Section, runControls?: number) => {
    const ref = registry.refFor(part.head.el, part.head.role, part.head.name);
    const indent = part.head.text.length - part.head.text.trimStart().length;
    const controls = runControls ?? part.controls;
    const what = controls === 1 ? "1 control" : `${controls} controls`;
    // A chunk starts at a control's line, which carries its ref already.
    const head = part.head.anchor ? part.head.text.trimStart() : `[${ref}] ${part.head.text.trimStart()}`;
    const end = last ?? part;
    // A chunk ends where the next line's element stands (the page may have grown lines since),
    // or, when that line has none, after as many lines as it had.
    const next = treeLines[end.end];
    foldedSpans.set(
      part.head.el,
      part.chunk
        ? { lines: end.end - part.start, before: typeof next === "string" ? undefined : next?.el }
        : last
          ? { through: last.head.el }
          : {},
    );
    const to = last ? ` (to ${last.head.text.trimStart()})` : "";
    return `${" ".repeat(indent)}${head} … folded: ${what}${to}`;
  });
  if (outline.folded > 0 || !outline.cut) {
    return {
      tree: outline.text,
      lines: outline.lines,
      chars: outline.text.length,
      // A folded tree is a cut view of the page too (callers that only read the flag still know).
      truncated: outline.cut || outline.folded > 0,
      folded: outline.folded,
      fullLines: lines,
      ...base,
    };
  }
  const kept: string[] = [];
  let used = 0;
  for (const line of lines) {
    if (used + line.length + 1 > budget) break;
    kept.push(line);
    used += line.length + 1;
  }
  const droppedLines = lines.length - kept.length;
  const droppedChars = fullChars - used;
  kept.push(
    `… truncated: ${droppedLines} more lines (${droppedChars} chars) not shown, budget ${budget} chars. ` +
      `Ask for a subtree with ref_id, filter "visible" or "interactive", or a larger max_chars.`,
  );
  const tree = kept.join("\n");
  return {
    tree,
    lines: kept.length,
    chars: tree.length,
    truncated: true,
    folded: 0,
    fullLines: lines,
    ...base,
  };
}

/**
 * Whether a label's control is a checkbox or radio that draws no box of its own (a custom-drawn
 * one): hidden the way the walk skips it (no box, visibility, the 1px "visually hidden" clip).
 */
function toggleDrawsNoBox(control: Element, styleOf: StyleReader): boolean {
  const dom = nativeDom();
  if (dom.localName(control) !== "input") return false;
  const type = dom.inputType(control as HTMLInputElement);
  if (type !== "checkbox" && type !== "radio") return false;
  if (!control.checkVisibility({ visibilityProperty: true })) return true;
  const rect = dom.getBoundingClientRect(control);
  return ownBoxHidden(styleOf(control), dom.rectWidth(rect), dom.rectHeight(rect));
}

/**
 * Controls a person acts on: a wired container holding one is not itself a control. (Cheap:
 * asked only of elements made clickable by a listener or a pointer cursor.)
 */
const REAL_CONTROLS =
  "a[href], button, input:not([type=hidden]), select, textarea, [contenteditable=''], [contenteditable=true], " +
  "[role=button], [role=link], [role=checkbox], [role=radio], [role=switch], [role=textbox], [role=combobox], " +
  "[role=menuitem], [role=tab], [role=option], [role=slider], [role=spinbutton]";

/**
 * A listener on an icon inside a button, link or toggle (a delegated `.icon` handler) does not
 * make the icon a second control: the control it sits in is what a person clicks. Only for
 * elements with no role, no tabindex and no text (an icon); a clickable row's icons stay theirs.
 */
function decorationOfControl(el: Element, inh: Inherited, baseRole: string, names: AttributeNames): boolean {
  if (!inh.insideActionable || inh.lineRole === "clickable" || inh.lineRole === "") return false;
  if (baseRole !== "" || names.includes("tabindex")) return false;
  return !/\S/.test(nativeDom().textContent(el) ?? "");
}

/** A swatch in running text is a small box: a larger coloured block is layout, not content. */
const SWATCH_MAX_PX = 120;
/** `teal #008080` for an empty, small, coloured box printing no line of its own; else "". */
function swatchInProse(el: Element, style: CSSStyleDeclaration): string {
  const dom = nativeDom();
  const rect = dom.getBoundingClientRect(el);
  const width = dom.rectWidth(rect);
  const height = dom.rectHeight(rect);
  if (width < 4 || height < 4 || width > SWATCH_MAX_PX || height > SWATCH_MAX_PX) return "";
  return swatchColour(el, style);
}

/**
 * What a folded line's ref prints when passed back as ref_id: its part, a run of sibling parts
 * through the last one's, or a chunk (or run of chunks) of so many lines.
 */
interface FoldedSpan {
  through?: Element;
  lines?: number;
  before?: Element;
}
let foldedSpans = new WeakMap<Element, FoldedSpan>();

/** End (exclusive) of what the folded line at `start` stands for. */
function foldedEnd(all: readonly TreeLine[], start: number, span: FoldedSpan | undefined): number {
  if (span?.lines !== undefined) {
    const before = span.before
      ? all.findIndex((line, i) => i > start && typeof line !== "string" && line.el === span.before)
      : -1;
    return before > start ? before : Math.min(all.length, start + span.lines);
  }
  const last = span?.through
    ? all.findIndex((line) => typeof line !== "string" && line.el === span.through)
    : -1;
  return sectionEnd(all, Math.max(last, start));
}

function isHeading(el: Element): boolean {
  return /^h[1-6]$/.test(el.localName) || el.getAttribute("role") === "heading";
}
