/**
 * What each conformance call must have done, read from its structured result (the runner's
 * `answer.result`, the add-on's `details`: the same object on both ports). A success flag alone
 * cannot fail when a port answers from the wrong frame, the wrong tab or an empty page, so both
 * ports' tool-conformance tests check every offered tool's result here as well (issue 23).
 *
 * The fixture's facts the checks rely on: tools.html's "Full name" and "City" fields, its one
 * table (Item/Price, Lamp/30), the cross-origin frame's "Voucher code" field (frame.html), the
 * same-origin frame's "Coupon code" field (same-origin-form.html), report.txt's one line and
 * data.json's order count.
 */
import {
  CONFORMANCE_DOWNLOAD_LINK,
  CONFORMANCE_FRAME_FILTER,
  CONFORMANCE_SAME_ORIGIN_FRAME_FILTER,
} from "./tool-conformance.js";

const REPORT_TEXT = "Quarterly report: 3 orders.";
const REPORT_BYTES = new TextEncoder().encode(`${REPORT_TEXT}\n`).length;

type Result = Record<string, unknown>;

interface FormField {
  name?: unknown;
  value?: unknown;
}

/** The page's fields a verify_form answer names, as "name=value". */
function verifiedFields(result: Result): string[] {
  const forms = Array.isArray(result.forms) ? (result.forms as { fields?: FormField[] }[]) : [];
  return forms.flatMap((form) => (form.fields ?? []).map((field) => `${field.name}=${field.value}`));
}

/** The field a frame filter names, with the value the conformance's iframe_type gave it. */
function frameField(urlFilter: unknown): string | undefined {
  if (urlFilter === CONFORMANCE_FRAME_FILTER) return "Voucher code=SPRING";
  if (urlFilter === CONFORMANCE_SAME_ORIGIN_FRAME_FILTER) return "Coupon code=SUMMER";
  return undefined;
}

function text(value: unknown): string {
  return typeof value === "string" ? value : JSON.stringify(value ?? null);
}

/** The one download object a result carries, whichever field the tool uses for it. */
function firstDownload(result: Result): Result | undefined {
  if (result.download && typeof result.download === "object") return result.download as Result;
  const list = result.downloads;
  return Array.isArray(list) && list[0] && typeof list[0] === "object" ? (list[0] as Result) : undefined;
}

function checkDownload(download: Result | undefined, what: string): string | undefined {
  if (!download) return `no ${what} in the result`;
  if (!/report.*\.txt$/.test(String(download.filename)))
    return `${what} is ${text(download.filename)}, not the report`;
  if (download.bytes !== REPORT_BYTES)
    return `${what} has ${text(download.bytes)} bytes, not ${REPORT_BYTES}`;
  return undefined;
}

/**
 * Why a conformance call's result is not what the call must have done, or undefined when it is.
 * `args` are the call's own (follow-up calls differ from the first); tools whose effect leaves
 * nothing to read in their result (scroll, hover, a hand-over, the turn's end) are checked by
 * success alone here and by their own behaviour tests.
 */
export function conformanceEffectProblem(
  tool: string,
  args: Record<string, unknown>,
  result: Result,
  pageUrl: string,
): string | undefined {
  const has = (value: unknown, needle: string) => text(value).includes(needle);
  switch (tool) {
    case "get_accessibility_tree":
      return has(result.tree, 'textbox "Full name"') && has(result.tree, 'iframe "Partner form"')
        ? undefined
        : "the tree lacks the page's Full name field or its Partner form frame";
    case "screenshot":
      // A port that fell back to the viewport answers full: false (and says so to the model).
      return result.full === (args.full === true) && result.mimeType === "image/png"
        ? undefined
        : `screenshot ${text(args)} answered full ${text(result.full)} as ${text(result.mimeType)}`;
    case "read_page":
      return has(result.text, "A page for calling every tool once.") ? undefined : "not the page's text";
    case "extract_data":
      return has(result.items, '["Lamp","30"]') ? undefined : "the page's table (Lamp, 30) is not extracted";
    case "get_frames":
      return has(result.frames, "same-origin-form.html") && has(result.frames, "frame.html")
        ? undefined
        : "not both of the page's frames";
    case "execute_js":
      return result.result === "Tool conformance"
        ? undefined
        : `document.title answered ${text(result.result)}`;
    case "type_ax":
    case "set_field":
    case "type_text": {
      const typed = args.value ?? args.text;
      return result.verified === true && result.value === typed
        ? undefined
        : `the field holds ${text(result.value)} (verified ${text(result.verified)}), not ${text(typed)}`;
    }
    case "select_text":
      return result.selected === args.text ? undefined : `selected ${text(result.selected)}`;
    case "iframe_read":
      return has(result.text, "Voucher code") && !has(result.text, "Full name")
        ? undefined
        : "not the frame's text (the frame's Voucher code, none of the top page's fields)";
    case "iframe_type":
      // Nothing here leaves a page: a frame that says "leaving" mistook an earlier document's unload.
      if (result.leaving) return "the frame's answer says it is being left";
      return result.value === args.text && has(result.frame, String(args.urlFilter))
        ? undefined
        : `typed ${text(result.value)} into ${text(result.frame)}, not ${text(args.text)} into ${text(args.urlFilter)}`;
    case "iframe_click":
      return has(result.target, "Apply voucher")
        ? undefined
        : `clicked ${text(result.target)}, not the frame's button`;
    case "verify_form": {
      // A port that reads the top page instead of the named frame answers Full name here.
      const fields = verifiedFields(result);
      const expected = frameField(args.urlFilter);
      if (expected)
        return fields.includes(expected) && !fields.some((field) => field.startsWith("Full name="))
          ? undefined
          : `verify_form ${text(args.urlFilter)} read ${text(fields)}, not the frame's ${expected}`;
      return fields.some((field) => field.startsWith("Full name=")) ? undefined : `read ${text(fields)}`;
    }
    case "fetch_url":
      return has(result.body, '"orders": 3') ? undefined : "not data.json's body";
    case "research_url":
      return has(result.text, "Voucher code") ? undefined : "not the researched page's text";
    case "download_files":
    case "download_resource_from_page":
      return checkDownload(firstDownload(result), "download");
    case "click":
      // The follow-up click on the download link: its result reports the download it started.
      // A download is no navigation: the page stays where it was.
      if (args.text === CONFORMANCE_DOWNLOAD_LINK) {
        const problem = result.navigated
          ? `the clicked download was reported as a navigation to ${text(result.url)}`
          : checkDownload(firstDownload(result), "clicked download");
        // The whole result with the problem: a missing download was seen twice on the runner
        // under load, and what the click did report is the lead to its cause.
        return problem && `${problem}; the click's result: ${text(result)}`;
      }
      return has(result.target, String(args.text)) ? undefined : `clicked ${text(result.target)}`;
    case "upload_file":
      return has(result.uploaded, "report") ? undefined : `uploaded ${text(result.uploaded)}, not the report`;
    case "click_ax":
    case "hover": {
      // Both ports name the element acted on as `target` (the runner's trusted path and the
      // add-on's synthetic one answered `target` and `clicked`/`hovered` before issue 23).
      const target = result.target as { ref_id?: unknown } | undefined;
      return String(target?.ref_id) === String(args.ref_id) ? undefined : `acted on ${text(target)}`;
    }
    case "read_downloaded_file":
      return has(result.content, REPORT_TEXT) ? undefined : "not the report's content";
    case "navigate":
    case "go_forward":
      return text(result.url).endsWith("&visit=2") ? undefined : `at ${text(result.url)}`;
    case "go_back":
      return text(result.url).includes("visit=2") ? `still at ${text(result.url)}` : undefined;
    case "promote_iframe":
      return has(result.url, CONFORMANCE_FRAME_FILTER) ? undefined : `promoted ${text(result.url)}`;
    case "new_tab":
      return typeof result.tabId === "string" && result.tabId !== "" && result.url === pageUrl
        ? undefined
        : `new_tab answered ${text(result.tabId)} at ${text(result.url)}`;
    default:
      return undefined;
  }
}
