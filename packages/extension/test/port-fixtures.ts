/**
 * Fixture pages for the add-on's BrowserPort tests, served as routes of the testkit fixture
 * server (so a test can set headers such as a strict Content-Security-Policy). The server answers
 * on two origins (127.0.0.1 and localhost), which makes the frames here cross-origin.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import type { FixtureRoute } from "@webbrain/testkit";

/** How long the slow orders request takes: far longer than wait_for_stable's quiet period, ms. */
export const SLOW_ORDERS_MS = 1_500;

export const REPORT_CSV = "month,total\nJanuary,1200\nFebruary,980\n";

function html(body: string, headers: Record<string, string> = {}): FixtureRoute {
  return (_req: IncomingMessage, res: ServerResponse) => {
    res.writeHead(200, {
      "content-type": "text/html; charset=utf-8",
      "cache-control": "no-store",
      ...headers,
    });
    res.end(`<!doctype html><html lang="en"><head><meta charset="utf-8">${body}</html>`);
  };
}

/** A page embedding the frames named by `?frames=<url>,<url>` (each an iframe with a title). */
const FRAMES_HOST = html(`<title>Checkout</title></head><body>
<h1>Checkout</h1>
<form id="top-form"><label>Coupon <input id="coupon" value="SPRING"></label></form>
<div id="slots"></div>
<script>
  const urls = (new URLSearchParams(location.search).get("frames") || "").split(",").filter(Boolean);
  urls.forEach((url, i) => {
    const frame = document.createElement("iframe");
    frame.src = url;
    frame.title = "Frame " + (i + 1);
    document.getElementById("slots").append(frame);
  });
</script></body>`);

/** The page inside a frame: a button that reports its clicks and a small form. */
const PARTNER_FRAME = html(`<title>Partner payment</title></head><body>
<button id="inside" type="button">Pay inside frame</button>
<p id="frame-status" role="status">frame idle</p>
<form><label>Card holder <input id="holder" name="holder"></label></form>
<script>
  document.getElementById("inside").addEventListener("click", () => {
    document.getElementById("frame-status").textContent = "frame clicked at " + location.host;
  });
</script></body>`);

const APP_STATE_SCRIPT = `<script>window.appState = { user: "ann", cart: [1, 2, 3], since: new Date(0) };</script>`;

/** A page with page-realm globals, without a CSP. */
const APP_PAGE = html(`<title>App</title>${APP_STATE_SCRIPT}</head><body><p id="greeting">Hello</p></body>`);

/** The same page under a CSP that allows only its own scripts (no 'unsafe-eval'). */
const STRICT_APP_PAGE = html(
  `<title>Strict app</title><script src="/port/app-state.js"></script></head><body><p>Hello</p></body>`,
  { "content-security-policy": "script-src 'self'" },
);

const APP_STATE_JS: FixtureRoute = (_req, res) => {
  res.writeHead(200, { "content-type": "text/javascript", "cache-control": "no-store" });
  // The page records whether its own CSP lets it eval (the strict page's must not).
  res.end(
    `window.appState = { user: "ann", cart: [1, 2, 3], since: new Date(0) };
try { eval("1"); window.pageEval = "allowed"; } catch (error) { window.pageEval = error.name; }`,
  );
};

const FIRST_PAGE = html(`<title>First</title></head><body>
<h1>First page</h1><button type="button">Alpha</button><button type="button">Beta</button>
<a href="/port/second">Next</a></body>`);

const SECOND_PAGE = html(`<title>Second</title></head><body>
<h1>Second page</h1><button type="button" id="gamma">Gamma</button><input aria-label="Search"></body>`);

/** Quiet while its fetch is in flight: no DOM change until the slow answer arrives. */
const ORDERS_PAGE = html(`<title>Orders</title></head><body>
<button id="load" type="button">Load orders</button><button id="hang" type="button">Load archive</button>
<p id="status">Nothing loaded</p>
<script>
  document.getElementById("load").addEventListener("click", async () => {
    const response = await fetch("/port/api/slow-orders");
    document.getElementById("status").textContent = await response.text();
  });
  document.getElementById("hang").addEventListener("click", () => fetch("/port/api/hanging"));
</script></body>`);

/** Answers of the hanging request still open; `releaseHanging()` ends them (afterAll). */
const hanging: ServerResponse[] = [];
export function releaseHanging(): void {
  for (const res of hanging.splice(0)) res.end();
}
const HANGING: FixtureRoute = (_req, res) => {
  hanging.push(res);
};

const SLOW_ORDERS: FixtureRoute = (_req, res) => {
  setTimeout(() => {
    res.writeHead(200, { "content-type": "text/plain", "cache-control": "no-store" });
    res.end("3 orders loaded");
  }, SLOW_ORDERS_MS);
};

/** A report to download and a form that takes a file and shows what it got. */
const FILES_PAGE = html(`<title>Files</title></head><body>
<a id="report" href="/port/files/report.csv">Monthly report</a>
<form><label>Attachment <input id="attach" type="file"></label></form>
<p id="upload-status">no file</p>
<script>
  document.getElementById("attach").addEventListener("change", async (event) => {
    const file = event.target.files[0];
    document.getElementById("upload-status").textContent =
      file ? file.name + " (" + file.type + "): " + (await file.text()).split("\\n")[1] : "no file";
  });
</script></body>`);

function csvAttachment(filename: string): FixtureRoute {
  return (_req, res) => {
    res.writeHead(200, {
      "content-type": "text/csv",
      "content-disposition": `attachment; filename="${filename}"`,
      "cache-control": "no-store",
    });
    res.end(REPORT_CSV);
  };
}
const REPORT = csvAttachment("report.csv");

/**
 * Clicks with side effects, as the runner's fixture (downloads-popups.html) has them, plus page
 * dialogs: a download link, a new-tab link, a popup button, an alert and a confirm.
 */
const EFFECTS_PAGE = html(`<title>Effects</title></head><body>
<h1>Reports</h1>
<a href="/port/files/summary.csv" download="monthly-summary.csv">Download report</a>
<a href="/port/second" target="_blank">Open second in a new tab</a>
<button type="button" onclick="window.open('/port/first', 'account', 'width=400,height=300')">Open account popup</button>
<button type="button" onclick="alert('Saved as draft')">Save draft</button>
<button type="button" onclick="document.getElementById('answer').textContent = confirm('Delete the draft?') ? 'deleted' : 'kept'">Delete draft</button>
<p id="answer">undecided</p>
</body>`);

export const PORT_ROUTES: Record<string, FixtureRoute> = {
  "/port/effects": EFFECTS_PAGE,
  "/port/files/summary.csv": csvAttachment("summary.csv"),
  "/port/frames": FRAMES_HOST,
  "/port/partner-frame": PARTNER_FRAME,
  "/port/other-frame": PARTNER_FRAME,
  "/port/app": APP_PAGE,
  "/port/strict-app": STRICT_APP_PAGE,
  "/port/app-state.js": APP_STATE_JS,
  "/port/first": FIRST_PAGE,
  "/port/second": SECOND_PAGE,
  "/port/orders": ORDERS_PAGE,
  "/port/api/slow-orders": SLOW_ORDERS,
  "/port/api/hanging": HANGING,
  "/port/files": FILES_PAGE,
  "/port/files/report.csv": REPORT,
};
