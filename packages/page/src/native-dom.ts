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
type Native = (this: unknown, ...args: unknown[]) => unknown;

/** The native getter, or a plain read where the realm lacks it. */
function nativeGetter(proto: object | undefined, name: string): Native {
  const get = proto ? Object.getOwnPropertyDescriptor(proto, name)?.get : undefined;
  if (get) return get as Native;
  return function (this: unknown) {
    return (this as Record<string, unknown>)[name];
  };
}

/** The native method, or a plain call where the realm lacks it. */
function nativeMethod(proto: object | undefined, name: string): Native {
  const fn = proto ? Object.getOwnPropertyDescriptor(proto, name)?.value : undefined;
  if (typeof fn === "function") return fn as Native;
  return function (this: unknown, ...args: unknown[]) {
    return (this as Record<string, (...a: unknown[]) => unknown>)[name]!(...args);
  };
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

interface NativeDom {
  firstChild: Read<Node, Node | null>;
  firstElementChild: Read<Element, Element | null>;
  nextSibling: Read<Node, Node | null>;
  nextElementSibling: Read<Element, Element | null>;
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
  /** `el.onclick` / `el.onmousedown`: a handler property set by script (HTML, SVG or MathML). */
  onclick: Read<Element, unknown>;
  onmousedown: Read<Element, unknown>;
}

/** getComputedStyle of one window, bound once (see styleReader). */
export type StyleReader = (el: Element) => CSSStyleDeclaration;

let cached: NativeDom | undefined;

/** The accessors of this realm, looked up on first use. */
export function nativeDom(): NativeDom {
  cached ??= lookUp();
  return cached;
}

/**
 * Each accessor is its own arrow function calling one native function: a shared wrapper would
 * make its one call site see every native (megamorphic), which the JIT cannot inline.
 */
function lookUp(): NativeDom {
  const node = globalThis.Node?.prototype;
  const element = globalThis.Element?.prototype;
  const rect = globalThis.DOMRectReadOnly?.prototype;
  const style = globalThis.CSSStyleDeclaration?.prototype;
  const input = globalThis.HTMLInputElement?.prototype;
  const html = globalThis.HTMLElement?.prototype;
  const firstChild = nativeGetter(node, "firstChild");
  const firstElementChild = nativeGetter(element, "firstElementChild");
  const nextSibling = nativeGetter(node, "nextSibling");
  const nextElementSibling = nativeGetter(element, "nextElementSibling");
  const nodeType = nativeGetter(node, "nodeType");
  const nodeValue = nativeGetter(node, "nodeValue");
  const textContent = nativeGetter(node, "textContent");
  const localName = nativeGetter(element, "localName");
  const childElementCount = nativeGetter(element, "childElementCount");
  const shadowRoot = nativeGetter(element, "shadowRoot");
  const getAttributeNames = nativeMethod(element, "getAttributeNames");
  const getAttribute = nativeMethod(element, "getAttribute");
  const matches = nativeMethod(element, "matches");
  const closest = nativeMethod(element, "closest");
  const getRootNode = nativeMethod(node, "getRootNode");
  const getBoundingClientRect = nativeMethod(element, "getBoundingClientRect");
  const rectWidth = nativeGetter(rect, "width");
  const rectHeight = nativeGetter(rect, "height");
  const getPropertyValue = nativeMethod(style, "getPropertyValue");
  const hasAttributes = nativeMethod(element, "hasAttributes");
  const parentElement = nativeGetter(node, "parentElement");
  return {
    firstChild: (self) => firstChild.call(self) as Node | null,
    firstElementChild: (self) => firstElementChild.call(self) as Element | null,
    nextSibling: (self) => nextSibling.call(self) as Node | null,
    nextElementSibling: (self) => nextElementSibling.call(self) as Element | null,
    nodeType: (self) => nodeType.call(self) as number,
    nodeValue: (self) => nodeValue.call(self) as string | null,
    textContent: (self) => textContent.call(self) as string | null,
    localName: (self) => localName.call(self) as string,
    childElementCount: (self) => childElementCount.call(self) as number,
    shadowRoot: (self) => shadowRoot.call(self) as ShadowRoot | null,
    getAttributeNames: (self) => getAttributeNames.call(self) as string[],
    getAttribute: (self, name) => getAttribute.call(self, name) as string | null,
    matches: (self, selector) => matches.call(self, selector) as boolean,
    closest: (self, selector) => closest.call(self, selector) as Element | null,
    getRootNode: (self) => getRootNode.call(self) as Node,
    getBoundingClientRect: (self) => getBoundingClientRect.call(self) as DOMRect,
    rectWidth: (self) => rectWidth.call(self) as number,
    rectHeight: (self) => rectHeight.call(self) as number,
    getPropertyValue: (self, name) => getPropertyValue.call(self, name) as string,
    hasAttributes: (self) => hasAttributes.call(self) as boolean,
    parentElement: (self) => parentElement.call(self) as Element | null,
    isContentEditable: interfaceGetterOf(html, "isContentEditable"),
    inputType: interfaceGetterOf(input, "type"),
    inputValue: interfaceGetterOf(input, "value"),
    inputChecked: interfaceGetterOf(input, "checked"),
    inputIndeterminate: interfaceGetterOf(input, "indeterminate"),
    labelControl: interfaceGetterOf(globalThis.HTMLLabelElement?.prototype, "control"),
    onclick: interfaceGetterOf(html, "onclick"),
    onmousedown: interfaceGetterOf(html, "onmousedown"),
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
