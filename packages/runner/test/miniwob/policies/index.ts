/**
 * The instruction table: MiniWoB++'s wording for each kind of task and the policy it gets.
 * One row per kind; the policies live in click.ts, forms.ts, apps.ts, reading.ts, svg.ts and
 * text-tools.ts.
 */

import { emailIcon, emailRespond, phoneBook, searchAndPick, socialAction, socialActionMany } from "./apps.js";
import {
  clickInTurn,
  clickNamed,
  clickNth,
  clickWidget,
  expandThenSubmit,
  findAndClick,
  menuButtonItem,
  menuPath,
} from "./click.js";
import { pickDate } from "./dates.js";
import {
  autocomplete,
  dropdownThenButton,
  fillAndSubmit,
  focusFirstField,
  radioThenField,
  selectAndSubmit,
  selectManyAndSubmit,
  spinAndSubmit,
  typeAndSubmit,
} from "./forms.js";
import { generateNumber, markOddEven, NUMBER_RULES, tableToForm, typeShownText } from "./more.js";
import { algebra, arithmetic, caseOf, nthWord, ordinal, tableValue } from "./reading.js";
import {
  ascendingNumbers,
  bisectAngle,
  buyBelow,
  circleCenter,
  clickShape,
  countShapes,
  dragShape,
  findMidpoint,
  gridCoordinate,
  identifyShape,
  rightAngle,
} from "./svg.js";
import { TEXT_TOOL_POLICIES } from "./text-tools.js";
import { type Policy, sequence } from "./tree.js";
import { WIDGET_POLICIES } from "./widgets.js";

export type { Call, Next, Policy, TreeItem } from "./tree.js";
export { Tree } from "./tree.js";

const listOf = (text: string): string[] =>
  text === "nothing"
    ? []
    : text
        .split(/,\s*|\s+and\s+/)
        .map((s) => s.trim())
        .filter(Boolean);

/** MiniWoB's shape descriptions: size and colour words, then what it is (or the letter itself). */
const SHAPE_DESCRIPTION =
  "(?:(?:large|small|red|green|blue|aqua|black|magenta|yellow) )*(?:circle|rectangle|triangle|letter|digit|shape|item|[A-Za-z0-9])";

const POSITION: Record<string, number> = { "1st": 1, "2nd": 2, "3rd": 3, "4th": 4, "5th": 5 };

/** Instruction patterns (MiniWoB++'s wording) and the policy each one gets. */
export const POLICIES: Array<[RegExp, (m: RegExpExecArray) => Policy | undefined]> = [
  ...TEXT_TOOL_POLICIES,
  ...WIDGET_POLICIES,
  [/^Click on the "(.+)" button\.$/, (m) => clickNamed(m[1]!, ["button"])],
  [/^Click the button in the dialog box labeled "x"\.$/, () => clickNamed("close", ["button"])],
  [/^Click the button in the dialog box labeled "(.+)"\.$/, (m) => clickNamed(m[1]!, ["button"])],
  [/^Click button (\w+), then click button (\w+)\.$/, (m) => clickInTurn([m[1]!, m[2]!])],
  [/^Click button (\w+)\.$/, (m) => clickNamed(m[1]!, ["button"])],
  [/^Click the cancel button\.$/, () => clickNamed("Cancel", ["button"])],
  [/^Close the dialog box by clicking the "x"\.$/, () => clickNamed("close", ["button"])],
  [/^Click on the link "(.+)"\.$/, (m) => findAndClick(m[1]!)],
  [/^Switch between the tabs to find and click on the link "(.+)"\.$/, (m) => findAndClick(m[1]!)],
  [/^Expand the sections below, to find and click on the link "(.+)"\.$/, (m) => findAndClick(m[1]!)],
  [
    /^Navigate through the file tree\. Find and click on the folder or file named "(.+)"\.$/,
    (m) => findAndClick(m[1]!),
  ],
  [/^Click on Tab #(\d+)\.$/, (m) => clickNamed(`Tab #${m[1]}`, ["tab", "link", "clickable"])],
  [/^Click on a "(\w+)" widget\.$/, (m) => clickWidget(m[1]!)],
  [/^Click the button\.$/, () => clickWidget("button")],
  [
    /^Click the "Menu" button, and then find and click on the item labeled "(.+)"\.$/,
    (m) => menuButtonItem("Menu", m[1]!),
  ],
  [/^Select ([^ ]+>[^ ].*)$/, (m) => menuPath(m[1]!.split(">"))],
  [/^Focus into the textbox\.$/, () => focusFirstField],
  [/^Focus into the (\w+) input textbox\.$/, (m) => clickNth("textbox", POSITION[m[1]!] ?? 1)],
  [/^Enter "(.+)" into the text field and press Submit\.$/, (m) => typeAndSubmit(m[1]!)],
  [/^Type "(.+)" in (.+) in the text input and press Submit\.$/, (m) => typeAndSubmit(caseOf(m[1]!, m[2]!))],
  [/^Enter (\d+\/\d+\/\d+) as the date and hit submit\.$/, (m) => typeAndSubmit(m[1]!)],
  [/^Select (\d+\/\d+\/\d+) as the date and hit submit\.$/, (m) => pickDate(m[1]!)],
  [/^Enter (\d+:\d+ [AP]M) as the time and press submit\.$/, (m) => typeAndSubmit(m[1]!.padStart(8, "0"))],
  [
    /^Use the textbox to enter "(.+)" and press "Search", then find and click the (\w+) search result\.$/,
    (m) => searchAndPick(m[1]!, ordinal(m[2]!)),
  ],
  [
    /^Enter the password "(.+)" into both text fields and press submit\.$/i,
    (m) => fillAndSubmit([{ value: m[1]! }, { value: m[1]! }]),
  ],
  [
    /^Enter the username "(.+)" and the password "(.+)" into the text fields and press login\.$/i,
    (m) =>
      fillAndSubmit([
        { field: "username", value: m[1]! },
        { field: "password", value: m[2]! },
      ]),
  ],
  [/^Select (.+, .+) from the scroll list and click Submit\.$/, (m) => selectManyAndSubmit(listOf(m[1]!))],
  [/^Select (.+) from the (?:scroll )?list and click Submit\.$/, (m) => selectAndSubmit([m[1]!])],
  [
    /^Select (.+) and click Submit\.$/,
    (m) => (/^words similar to/.test(m[1]!) ? undefined : selectAndSubmit(listOf(m[1]!))),
  ],
  [/^Expand the section below and click submit\.$/, () => expandThenSubmit],
  [
    /^Check the (\w+) radio button and enter the number "(.+)" into the (\w+) textbox\.$/,
    (m) => radioThenField(ordinal(m[1]!), m[2]!, ordinal(m[3]!)),
  ],
  [
    /^Choose (.+) from the dropdown, then click the button labeled "(.+)"\.$/,
    (m) => dropdownThenButton(m[1]!, m[2]!),
  ],
  [/^Select (-?\d+) with the spinner and hit Submit\.$/, (m) => spinAndSubmit(m[1]!)],
  [/^Enter an item that starts with "(.+?)"(?: and ends with "(.+)")?\.$/, (m) => autocomplete(m[1]!, m[2])],
  [
    /^Find the email by (.+) and click the star icon to mark it as important\.$/,
    (m) => emailIcon(m[1]!, "star"),
  ],
  [/^Find the email by (.+) and click the trash icon to delete it\.$/, (m) => emailIcon(m[1]!, "trash")],
  [
    /^Find the email by (.+) and reply to them with the text "(.+)"\.$/,
    (m) => emailRespond(m[1]!, "reply", m[2]!),
  ],
  [/^Find the email by (.+) and forward that email to (.+)\.$/, (m) => emailRespond(m[1]!, "forward", m[2]!)],
  [/^For the user (@\w+), click on the "(.+)" button\.$/, (m) => socialAction(m[1]!, m[2]!)],
  [
    /^Click the "(.+)" button on all posts by (@\w+) and then click Submit\.$/,
    (m) => socialActionMany(m[2]!, m[1]!),
  ],
  [
    /^Click the "(.+)" button on (\d+) posts? by (@\w+) and then click Submit\.$/,
    (m) => socialActionMany(m[3]!, m[1]!, Number(m[2])),
  ],
  [/^Find (.+) in the contact book and click on their (\w+)\.$/, (m) => phoneBook(m[1]!, m[2]!)],
  [/^Enter the value of (.+) into the text field and press Submit\.$/, (m) => tableValue(m[1]!)],
  [
    /^Find the (\w+) word in the paragraph, type that into the textbox and press "Submit"\.$/,
    (m) => nthWord(ordinal(m[1]!)),
  ],
  [
    /^Solve the math problem and type your answer into the textbox\. Press submit when done\.$/,
    () => arithmetic,
  ],
  [/^Solve for x and type your answer into the textbox\. Press Submit when done\.$/, () => algebra],
  [
    /^Search for (.+) movies directed by (.+) from year (\d+)\.$/,
    (m) =>
      fillAndSubmit([
        { field: "Genre", value: m[1]! },
        { field: "Director", value: m[2]! },
        { field: "Year", value: m[3]! },
      ]),
  ],
  // Drawings (inline SVG shapes, read from the tree's drawing lines).
  [new RegExp(`^Click on a (${SHAPE_DESCRIPTION})$`), (m) => clickShape(m[1]!)],
  [new RegExp(`^How many (${SHAPE_DESCRIPTION})s are there\\?$`), (m) => countShapes(m[1]!)],
  [/^Click the button that best describes the figure below\.$/, () => identifyShape],
  [/^Click on the grid coordinate \((-?\d+),(-?\d+)\)\.$/, (m) => gridCoordinate(Number(m[1]), Number(m[2]))],
  [/^Click on the numbers in ascending order\.$/, () => ascendingNumbers],
  [/^Find and click on the center of the circle, then press submit\.$/, () => circleCenter],
  [
    /^Find and click on the shortest mid-point between the two points, then press submit\.$/,
    () => findMidpoint,
  ],
  [/^Add a third point to create a right angle, then press submit\.$/, () => rightAngle],
  [/^Create a line that bisects the angle evenly in two, then press submit\.$/, () => bisectAngle],
  [/^Drag the (?:circle|item) (\w+) then press Submit\.$/, (m) => dragShape(m[1]!)],
  [/^Buy \w+ stock when the price is less than \$(\d+(?:\.\d+)?)\.$/, (m) => buyBelow(Number(m[1]))],
  [
    /^Enter the value that corresponds with each label into the form and submit when done\.$/,
    () => tableToForm,
  ],
  [/^Mark the numbers below as odd or even and press submit when done\.$/, () => markOddEven],
  [/^Type the text below into the text field and press Submit\.$/, () => typeShownText],
  [
    /^Generate (.+), then press submit\.$/,
    (m) => {
      for (const [rule, fits] of NUMBER_RULES) {
        const r = rule.exec(m[1]!);
        if (r) return generateNumber(fits(r));
      }
      return undefined;
    },
  ],
];

/** The policy for an instruction, or undefined when no scripted policy knows it. */
export function policyFor(utterance: string): Policy | undefined {
  const u = utterance.replace(/\s+/g, " ").trim();
  for (const [pattern, make] of POLICIES) {
    const m = pattern.exec(u);
    if (m) return make(m);
  }
  return undefined;
}

export { sequence };
