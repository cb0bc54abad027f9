/**
 * A tool's example call: the one call both conformance tests make of it in real Firefox, on the
 * conformance page (packages/testkit's fixtures/conformance/tools.html and its two frames). The
 * example may name that page's elements by selector or text and its frames by a piece of their
 * URL, as plain strings; what differs from one run to the next (the ref the tree gave an
 * element, the fixture server's origin and port, the page's own URL, a download's id) is a
 * placeholder below, which whoever makes the call resolves against the page it has
 * (`resolveExample`).
 *
 * Invariants:
 * - A placeholder is a plain object whose `$example` says what it stands for, so an example is
 *   data (it prints, compares and serializes as written) and cannot be mistaken for an argument:
 *   no tool has an argument named `$example`.
 * - Resolving replaces each placeholder, at any depth (an array of URLs, a nested target), by a
 *   string or, for a ref, a number; every other value is copied as it is.
 * - A tool's example is valid for its parameters once resolved (the agent's tool-facets test
 *   checks every declaration, refs both as the number and as the string the schema accepts).
 */

/** The ref the page's tree gives the element with this role and name (exact name, else the first containing it). */
export interface ExampleRef {
  readonly $example: "ref";
  readonly role: string;
  readonly name: string;
}

/** A URL on the page's own origin (where the page's other files are), from its path. */
export interface ExampleOriginUrl {
  readonly $example: "origin_url";
  readonly path: string;
}

/** The page's own URL, with `suffix` appended as written (`"&visit=2"`: the page has a query). */
export interface ExamplePageUrl {
  readonly $example: "page_url";
  readonly suffix: string;
}

/** The id of a download the run already has (the newest). */
export interface ExampleDownloadId {
  readonly $example: "download_id";
}

export type ExamplePlaceholder = ExampleRef | ExampleOriginUrl | ExamplePageUrl | ExampleDownloadId;

/** A value in an example call: JSON, with placeholders anywhere a value may be. */
export type ExampleValue =
  | string
  | number
  | boolean
  | null
  | ExamplePlaceholder
  | readonly ExampleValue[]
  | { readonly [key: string]: ExampleValue };

/** An example call's arguments, as declared. */
export type ExampleArgs = { readonly [arg: string]: ExampleValue };

export function exampleRef(role: string, name: string): ExampleRef {
  return { $example: "ref", role, name };
}

export function exampleOriginUrl(path: string): ExampleOriginUrl {
  return { $example: "origin_url", path };
}

export function examplePageUrl(suffix = ""): ExamplePageUrl {
  return { $example: "page_url", suffix };
}

export const EXAMPLE_DOWNLOAD_ID: ExampleDownloadId = { $example: "download_id" };

/**
 * The conformance page's cross-origin frame, by the piece of its URL the frame tools take
 * (`urlFilter`): the same on every run, so a plain string, named once for the examples and the
 * test that checks their effects.
 */
export const EXAMPLE_FRAME_FILTER = "frame.html";

/** What the page an example runs on gives its placeholders. */
export interface ExamplePage {
  /** The ref of the element with this role and name; throws, naming what it saw, when none has it. */
  ref(role: string, name: string): number | string;
  /** A URL on the page's origin for this path. */
  originUrl(path: string): string;
  /** The page's own URL. */
  pageUrl: string;
  /** A download the run has; undefined: none (an example that needs one then throws). */
  downloadId: string | undefined;
}

export function isExamplePlaceholder(value: unknown): value is ExamplePlaceholder {
  return (
    typeof value === "object" &&
    value !== null &&
    !Array.isArray(value) &&
    typeof (value as { $example?: unknown }).$example === "string"
  );
}

function resolvePlaceholder(placeholder: ExamplePlaceholder, page: ExamplePage): number | string {
  switch (placeholder.$example) {
    case "ref":
      return page.ref(placeholder.role, placeholder.name);
    case "origin_url":
      return page.originUrl(placeholder.path);
    case "page_url":
      return `${page.pageUrl}${placeholder.suffix}`;
    case "download_id":
      if (page.downloadId === undefined)
        throw new Error("the example needs a download, and this run has none: start one first");
      return page.downloadId;
  }
}

function resolveValue(value: ExampleValue, page: ExamplePage): unknown {
  if (isExamplePlaceholder(value)) return resolvePlaceholder(value, page);
  if (Array.isArray(value)) return value.map((item: ExampleValue) => resolveValue(item, page));
  if (typeof value === "object" && value !== null) {
    const entries = Object.entries(value as { readonly [key: string]: ExampleValue });
    return Object.fromEntries(entries.map(([key, item]) => [key, resolveValue(item, page)]));
  }
  return value;
}

/** The call's arguments on this page: every placeholder replaced by what the page gives it. */
export function resolveExample(args: ExampleArgs, page: ExamplePage): Record<string, unknown> {
  return resolveValue(args, page) as Record<string, unknown>;
}
