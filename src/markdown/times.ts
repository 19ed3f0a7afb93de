// Global times: <time:…> with a date Zulip's parser understands (ISO 8601, "Jun 5th 2017,
// 10:30PM", "31 Dec 2017 5:30 am IST", or a Unix timestamp) becomes <time datetime="…Z">, which
// clients show in each reader's time zone. Dates without a zone are UTC, as in Zulip.
import { createRequire } from 'node:module';

interface ChronoResult {
  index: number;
  text: string;
  start: { date(): Date; get(component: string): number | null };
}
interface Chrono {
  strict: { parse(text: string, reference: { instant: Date; timezone: string }): ChronoResult[] };
}

let chrono: Chrono | undefined;

/** No date is longer; the natural-language parser never sees more. */
const MAX_TIME_TEXT = 100;
/** Python's datetime range, which Zulip's parser keeps to. */
const MIN_MS = Date.UTC(1, 0, 1);
const MAX_MS = Date.UTC(9999, 11, 31, 23, 59, 59);

function iso(ms: number): string | null {
  if (!Number.isFinite(ms) || ms < MIN_MS || ms > MAX_MS) return null;
  return new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/** The UTC instant a <time:…> text names, as ISO 8601 with a Z, or null when it names none. */
export function parseGlobalTime(text: string): string | null {
  const value = text.trim();
  if (!value || value.length > MAX_TIME_TEXT) return null;
  if (/^-?\d+$/.test(value)) return iso(Number(value) * 1000);
  chrono ??= createRequire(import.meta.url)('chrono-node') as Chrono;
  const results = chrono.strict.parse(value, { instant: new Date(0), timezone: 'UTC' });
  const found = results[0];
  // The whole text must be the date, not a date somewhere inside it.
  if (!found || results.length !== 1 || found.index !== 0 || found.text !== value) return null;
  const offset = found.start.get('timezoneOffset');
  if (offset !== null && Math.abs(offset) >= 24 * 60) return null;
  return iso(found.start.date().getTime());
}
