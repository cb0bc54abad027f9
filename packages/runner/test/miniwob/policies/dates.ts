/** Date-kind tasks: a jQuery UI datepicker behind a read-only field. */
import {
  actions,
  click,
  justWaited,
  named,
  type Policy,
  submitButton,
  textboxes,
  waitToSettle,
} from "./tree.js";

const MONTHS = [
  "January",
  "February",
  "March",
  "April",
  "May",
  "June",
  "July",
  "August",
  "September",
  "October",
  "November",
  "December",
];
const MONTH_HEADER = new RegExp(`^(${MONTHS.join("|")})\\s+(\\d{4})$`);

/**
 * Pick `mm/dd/yyyy` in a calendar: open it from its field, step Prev/Next to the month its
 * header names, click the day, then submit once the field shows the date. A field that takes
 * typing gets the date typed instead.
 */
export function pickDate(date: string): Policy {
  const [month, day, year] = date.split("/").map(Number) as [number, number, number];
  return (tree, history) => {
    const field = textboxes(tree.items)[0];
    const submit = submitButton(tree.items);
    if (field?.rest.includes(`value="${date}"`)) {
      const last = actions(history).at(-1);
      if (!submit || (last?.name === "click_ax" && last.args.ref_id === submit.ref))
        return { done: "submitted" };
      // the calendar fades out over the submit button after the pick
      return justWaited(history) ? click(submit) : waitToSettle;
    }
    if (field && !/\breadonly\b/.test(field.rest))
      return { name: "type_ax", args: { ref_id: field.ref, value: date } };
    const headerAt = tree.lines.findIndex((l) => MONTH_HEADER.test(l.text));
    if (headerAt < 0) return field ? click(field) : { done: "no date field" };
    const [, name, shownYear] = MONTH_HEADER.exec(tree.lines[headerAt]!.text)!;
    const ahead = (year - Number(shownYear)) * 12 + (month - 1 - MONTHS.indexOf(name!));
    if (ahead !== 0) {
      const step = named(tree.items, ahead > 0 ? "Next" : "Prev");
      return step ? click(step) : { done: `cannot reach ${date} from ${name} ${shownYear}` };
    }
    const days = tree.lines.slice(headerAt).filter((l) => l.ref !== undefined && l.name === String(day));
    const target = days.find((l) => l.role === "link") ?? days[0];
    return target?.ref !== undefined ? click({ ref: target.ref }) : { done: `no day ${day}` };
  };
}
