// Dates as a person reads them, in the browser's time zone and language: "14:03" today,
// "yesterday", "1 Dec" this year, "1 Dec 2025" before; the full date for a tooltip.

const DAY = 24 * 60 * 60 * 1000;

/** `iso` (a timestamp) as a Date, or null when it is not one. */
function parsed(iso) {
  const date = new Date(iso || "");
  return Number.isNaN(date.getTime()) ? null : date;
}

const startOfDay = (date) => new Date(date.getFullYear(), date.getMonth(), date.getDate()).getTime();

/** How many local calendar days `date` is before `now` (0 today, 1 yesterday). */
function daysBefore(date, now) {
  return Math.round((startOfDay(now) - startOfDay(date)) / DAY);
}

const time = (date) => date.toLocaleTimeString([], { hour: "2-digit", minute: "2-digit" });

/** The compact form a listing shows: "14:03", "yesterday", "1 Dec", "1 Dec 2025". */
export function shortDate(iso, now = new Date()) {
  const date = parsed(iso);
  if (!date) return "";
  const days = daysBefore(date, now);
  if (days === 0) return time(date);
  if (days === 1) return new Intl.RelativeTimeFormat([], { numeric: "auto" }).format(-1, "day");
  const sameYear = date.getFullYear() === now.getFullYear();
  return date.toLocaleDateString([], { day: "numeric", month: "short", ...(sameYear ? {} : { year: "numeric" }) });
}

/** The form a message's header shows: "14:03" today, else the day and the time ("yesterday 09:12"). */
export function dayAndTime(iso, now = new Date()) {
  const date = parsed(iso);
  if (!date) return "";
  const day = shortDate(iso, now);
  return daysBefore(date, now) === 0 ? day : `${day} ${time(date)}`;
}

/** A `<time>` element showing `text` for `iso`, with the full local date as its tooltip. */
export function timeNode(iso, text) {
  const node = document.createElement("time");
  node.textContent = text;
  const date = parsed(iso);
  if (date) {
    node.dateTime = date.toISOString();
    node.title = date.toLocaleString([], { dateStyle: "full", timeStyle: "short" });
  }
  return node;
}
