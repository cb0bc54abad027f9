/**
 * Pages the bench measures: our fixtures, a generated page with 5,000 elements (the speed
 * target), and real HTML manuals nobody here wrote (Debian's python3-doc).
 */
import { existsSync } from "node:fs";
import { type FixtureServer, startFixtureServer } from "@webbrain/testkit";

/** Where the fixture server started by `startBenchFixtures` serves the generated page. */
export const BIG_PAGE_PATH = "/bench/big.html";

export const PYTHON_DOC_ROOT = "/usr/share/doc/python3.11/html";

export interface BenchPage {
  label: string;
  /** "fixture" pages come from the fixture server; "doc" pages from the doc server. */
  server: "fixture" | "doc";
  path: string;
}

export const FIXTURE_PAGES: BenchPage[] = [
  { label: "fixture tree-basics", server: "fixture", path: "/page/tree-basics.html" },
  { label: "fixture combobox", server: "fixture", path: "/page/combobox.html" },
  { label: "fixture forms", server: "fixture", path: "/page/forms.html" },
  { label: "fixture modal", server: "fixture", path: "/page/modal.html" },
  { label: "generated 5,000 elements", server: "fixture", path: BIG_PAGE_PATH },
];

const DOC_PAGES = [
  "index.html",
  "tutorial/controlflow.html",
  "library/functions.html",
  "library/argparse.html",
  "library/stdtypes.html",
];

export function docPages(): BenchPage[] {
  if (!existsSync(PYTHON_DOC_ROOT)) return [];
  return DOC_PAGES.filter((p) => existsSync(`${PYTHON_DOC_ROOT}/${p}`)).map((p) => ({
    label: `python3-doc ${p}`,
    server: "doc",
    path: `/${p}`,
  }));
}

/** Elements on the generated page (html/head/body and the rows). */
export const BIG_PAGE_ELEMENTS = 5000;
const ELEMENTS_PER_ROW = 10;

/** The testkit fixture server, plus the generated page at BIG_PAGE_PATH. */
export function startBenchFixtures(): Promise<FixtureServer> {
  const big = bigPageHtml();
  return startFixtureServer({
    routes: {
      [BIG_PAGE_PATH]: (_req, res) => {
        res.writeHead(200, { "content-type": "text/html; charset=utf-8" });
        res.end(big);
      },
    },
  });
}

/** A page with exactly BIG_PAGE_ELEMENTS elements: rows of text, links, fields and buttons. */
export function bigPageHtml(): string {
  const rows: string[] = [];
  const rowCount = Math.floor((BIG_PAGE_ELEMENTS - 6) / ELEMENTS_PER_ROW);
  for (let i = 0; i < rowCount; i++) {
    // 10 elements: section, h3, p, b, a, label, input, button, span, div
    rows.push(
      `<section><h3>Item ${i}</h3><p>Row ${i} has <b>bold</b> text and <a href="#r${i}">a link</a>.</p>` +
        `<label>Qty ${i} <input value="${i}"></label><button type="button">Add ${i}</button><span>note</span><div></div></section>`,
    );
  }
  const used = 4 + rowCount * ELEMENTS_PER_ROW; // html, head, title, body
  const filler = Array.from({ length: Math.max(0, BIG_PAGE_ELEMENTS - used) }, () => "<i></i>").join("");
  return `<!doctype html><html lang="en"><head><title>Big</title></head><body>${rows.join("")}${filler}</body></html>`;
}

/** Selector for "the page's interactive controls", used the same way on both browsers. */
export const CONTROL_SELECTOR = [
  "a[href]",
  "button",
  "input:not([type=hidden])",
  "select",
  "textarea",
  "summary",
  "[role=button]",
  "[role=link]",
  "[role=checkbox]",
  "[role=radio]",
  "[role=tab]",
  "[role=menuitem]",
  "[role=option]",
  "[role=combobox]",
  "[role=textbox]",
  "[role=switch]",
  "[contenteditable=true]",
].join(", ");
