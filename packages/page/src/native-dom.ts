/**
 * The walk's hot DOM reads, through native accessors looked up once per realm.
 *
 * Why: in a BiDi sandbox or a content script every page node is an Xray wrapper, and `el.prop`
 * resolves `prop` through the wrapper on each new wrapper (~1 µs under Firefox 153). Calling the
 * native getter or method taken once from the prototype skips that resolution: a sibling walk
 * or a localName read becomes 10-20x cheaper, getBoundingClientRect about 2x.
 *
 * Invariants:
 * - Same results as the plain reads: the functions are the DOM's own. Through Xray, prototypes
 *   show only native properties, so page JS cannot replace them (as with plain reads there).
 * - Accessors work on nodes of same-origin frames too (the DOM checks the interface, not the
 *   window it came from).
 * - A realm without one of these properties falls back to the plain read of it.
 */

type Read<T, R> = (self: T) => R;
type Call<T, A extends unknown[], R> = (self: T, ...args: A) => R;

function getterOf<T, R>(proto: object | undefined, name: string): Read<T, R> {
  const get = proto ? Object.getOwnPropertyDescriptor(proto, name)?.get : undefined;
  if (get) return (self) => get.call(self) as R;
  return (self) => (self as Record<string, unknown>)[name] as R;
}

/**
 * For getters of one element interface (HTMLInputElement.type): an element with the same tag
 * name may implement another one (`<input>` inside `<svg>` is an SVG element), where the native
 * getter throws and the plain read gives what it always gave (usually undefined).
 */
function interfaceGetterOf<T, R>(proto: object | undefined, name: string): Read<T, R> {
  const get = proto ? Object.getOwnPropertyDescriptor(proto, name)?.get : undefined;
  const plain = (self: T) => (self as Record<string, unknown>)[name] as R;
  if (!get) return plain;
  return (self) => {
    try {
      return get.call(self) as R;
    } catch {
      return plain(self);
    }
  };
}

function methodOf<T, A extends unknown[], R>(proto: object | undefined, name: string): Call<T, A, R> {
  const fn = proto ? Object.getOwnPropertyDescriptor(proto, name)?.value : undefined;
  if (typeof fn === "function") return (self, ...args) => fn.apply(self, args) as R;
  return (self, ...args) => (self as Record<string, (...a: A) => R>)[name]!(...args);
}

interface NativeDom {
  firstChild: Read<Node, Node | null>;
  nextSibling: Read<Node, Node | null>;
  nodeType: Read<Node, number>;
  nodeValue: Read<Node, string | null>;
  textContent: Read<Node, string | null>;
  localName: Read<Element, string>;
  childElementCount: Read<Element, number>;
  shadowRoot: Read<Element, ShadowRoot | null>;
  getAttributeNames: Call<Element, [], string[]>;
  getAttribute: Call<Element, [string], string | null>;
  matches: Call<Element, [string], boolean>;
  closest: Call<Element, [string], Element | null>;
  getRootNode: Call<Node, [], Node>;
  getBoundingClientRect: Call<Element, [], DOMRect>;
  rectWidth: Read<DOMRectReadOnly, number>;
  rectHeight: Read<DOMRectReadOnly, number>;
  getPropertyValue: Call<CSSStyleDeclaration, [string], string>;
  hasAttributes: Call<Element, [], boolean>;
  parentElement: Read<Node, Element | null>;
  isContentEditable: Read<HTMLElement, boolean>;
  inputType: Read<HTMLInputElement, string>;
  inputValue: Read<HTMLInputElement, string>;
  inputChecked: Read<HTMLInputElement, boolean>;
  inputIndeterminate: Read<HTMLInputElement, boolean>;
  labelControl: Read<HTMLLabelElement, HTMLElement | null>;
}

/** getComputedStyle of one window, bound once (see styleReader). */
export type StyleReader = (el: Element) => CSSStyleDeclaration;

let cached: NativeDom | undefined;

/** The accessors of this realm, looked up on first use. */
export function nativeDom(): NativeDom {
  cached ??= lookUp();
  return cached;
}

function lookUp(): NativeDom {
  const node = globalThis.Node?.prototype;
  const element = globalThis.Element?.prototype;
  const rect = globalThis.DOMRectReadOnly?.prototype;
  const style = globalThis.CSSStyleDeclaration?.prototype;
  const input = globalThis.HTMLInputElement?.prototype;
  return {
    firstChild: getterOf(node, "firstChild"),
    nextSibling: getterOf(node, "nextSibling"),
    nodeType: getterOf(node, "nodeType"),
    nodeValue: getterOf(node, "nodeValue"),
    textContent: getterOf(node, "textContent"),
    localName: getterOf(element, "localName"),
    childElementCount: getterOf(element, "childElementCount"),
    shadowRoot: getterOf(element, "shadowRoot"),
    getAttributeNames: methodOf(element, "getAttributeNames"),
    getAttribute: methodOf(element, "getAttribute"),
    matches: methodOf(element, "matches"),
    closest: methodOf(element, "closest"),
    getRootNode: methodOf(node, "getRootNode"),
    getBoundingClientRect: methodOf(element, "getBoundingClientRect"),
    rectWidth: getterOf(rect, "width"),
    rectHeight: getterOf(rect, "height"),
    getPropertyValue: methodOf(style, "getPropertyValue"),
    hasAttributes: methodOf(element, "hasAttributes"),
    parentElement: getterOf(node, "parentElement"),
    isContentEditable: interfaceGetterOf(globalThis.HTMLElement?.prototype, "isContentEditable"),
    inputType: interfaceGetterOf(input, "type"),
    inputValue: interfaceGetterOf(input, "value"),
    inputChecked: interfaceGetterOf(input, "checked"),
    inputIndeterminate: interfaceGetterOf(input, "indeterminate"),
    labelControl: interfaceGetterOf(globalThis.HTMLLabelElement?.prototype, "control"),
  };
}

/**
 * `view.getComputedStyle` looked up once per window. It lives on each window object, not on
 * Window.prototype, and from a sandbox every `view.getComputedStyle` resolves it through the
 * window's wrapper again (about half the cost of the call itself).
 */
export function styleReader(view: Window): StyleReader {
  const read = view.getComputedStyle;
  return (el) => read.call(view, el);
}
