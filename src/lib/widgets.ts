// Zulip's message widgets, as its server writes and checks them: a message whose first word is
// `/poll` or `/todo` carries a `widget` submessage describing the widget (its question and
// options, or its title and tasks), and later submessages (votes, new options, task changes) are
// checked against the shapes Zulip's clients send. Pure functions; the writes are in
// actions/submessages.ts.

export type WidgetType = 'poll' | 'todo';
const WIDGET_TYPES: readonly string[] = ['poll', 'todo'];

/** Python's str.splitlines(): every line boundary it knows, no empty piece after a final one. */
function splitLines(s: string): string[] {
  const lines = s.split(/\r\n|[\n\r\v\f\x1c\x1d\x1e\x85\u2028\u2029]/);
  if (lines.length && lines[lines.length - 1] === '') lines.pop();
  return lines;
}

/** A list item's text without its "- " or "* " marker, as Zulip reads options and tasks. */
function itemText(line: string): string {
  return line.trim().replace(/^\s*[-*]?\s*/, '');
}

function pollData(rest: string): { question: string; options: string[] } {
  const lines = splitLines(rest);
  let question = '';
  // As in Zulip, the first line is the question only when it is not empty.
  if (lines.length && lines[0]) question = lines.shift()!.trim();
  const options = lines.map(itemText).filter((o) => o.length > 0);
  return { question, options };
}

function todoData(rest: string): { task_list_title: string; tasks: Array<{ task: string; desc: string }> } {
  const lines = splitLines(rest);
  let title = '';
  if (lines.length && lines[0]) title = lines.shift()!.trim();
  const tasks: Array<{ task: string; desc: string }> = [];
  for (const line of lines) {
    const text = itemText(line);
    if (!text) continue;
    // A task and its description are separated by the first ": ".
    const cut = text.indexOf(': ');
    tasks.push(cut < 0 ? { task: text.trim(), desc: '' } : { task: text.slice(0, cut).trim(), desc: text.slice(cut + 2).trim() });
  }
  return { task_list_title: title, tasks };
}

/** The widget a message's content makes (Zulip's get_widget_data), or undefined. */
export function widgetFor(content: string): { widget_type: WidgetType; extra_data: Record<string, unknown> } | undefined {
  const first = content.split(/\s+/, 1)[0] ?? '';
  if (!first.startsWith('/')) return undefined;
  const type = first.slice(1);
  if (!WIDGET_TYPES.includes(type)) return undefined;
  const rest = content.replace(first, '');
  return type === 'poll' ? { widget_type: 'poll', extra_data: pollData(rest) } : { widget_type: 'todo', extra_data: todoData(rest) };
}

/**
 * JSON as Python's json.dumps writes it by default (", " and ": " between items, everything
 * outside printable ASCII escaped), so the widget submessage's content is byte for byte Zulip's.
 */
export function pythonJsonDumps(value: unknown): string {
  if (value === null || value === undefined) return 'null';
  if (typeof value === 'string') return JSON.stringify(value).replace(/[^\x20-\x7e]/g, (c) => '\\u' + c.charCodeAt(0).toString(16).padStart(4, '0'));
  if (typeof value === 'number' || typeof value === 'boolean') return JSON.stringify(value);
  if (Array.isArray(value)) return '[' + value.map(pythonJsonDumps).join(', ') + ']';
  const entries = Object.entries(value as Record<string, unknown>).filter(([, v]) => v !== undefined);
  return '{' + entries.map(([k, v]) => `${pythonJsonDumps(k)}: ${pythonJsonDumps(v)}`).join(', ') + '}';
}

// ---- Zulip's checks of widget submessages (validate_poll_data / validate_todo_data) ----

/** Zulip's MAX_IDX for option and task indexes. */
const MAX_IDX = 1000;

type Check = (value: unknown, name: string) => string | null;

const isDict = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
// Python's bool is an int; JSON numbers with a fraction are not.
const asInt = (v: unknown): number | undefined => (typeof v === 'boolean' ? Number(v) : typeof v === 'number' && Number.isInteger(v) ? v : undefined);

const str: Check = (v, name) => (typeof v === 'string' ? null : `${name} is not a string`);
const bool: Check = (v, name) => (typeof v === 'boolean' ? null : `${name} is not a boolean`);
const intIn =
  (allowed: number[]): Check =>
  (v, name) => {
    const n = asInt(v);
    if (n === undefined) return `${name} is not an integer`;
    return allowed.includes(n) ? null : `Invalid ${name}`;
  };
const intRange =
  (low: number, high: number): Check =>
  (v, name) => {
    const n = asInt(v);
    if (n === undefined) return `${name} is not an integer`;
    if (n < low) return `${name} is too small`;
    if (n > high) return `${name} is too large`;
    return null;
  };

/** Zulip's check_dict_only: these keys, each checked, and no others. */
function dictOnly(value: Record<string, unknown>, name: string, keys: Array<[string, Check]>): string | null {
  for (const [key, check] of keys) {
    if (!(key in value)) return `${key} key is missing from ${name}`;
    const err = check(value[key], `${name}["${key}"]`);
    if (err) return err;
  }
  const extra = Object.keys(value).filter((k) => !keys.some(([key]) => key === k));
  return extra.length ? `Unexpected arguments: ${extra.join(', ')}` : null;
}

function typed(value: unknown, name: string): { error: string } | { value: Record<string, unknown>; type: string } {
  if (!isDict(value)) return { error: `${name} is not a dict` };
  if (!('type' in value)) return { error: `type key is missing from ${name}` };
  if (typeof value.type !== 'string') return { error: `${name}["type"] is not a string` };
  return { value, type: value.type };
}

/** The error Zulip gives for a poll submessage, or null when it is acceptable. */
export function pollDataError(data: unknown, isWidgetAuthor: boolean): string | null {
  const name = 'poll data';
  const t = typed(data, name);
  if ('error' in t) return t.error;
  switch (t.type) {
    case 'vote':
      return dictOnly(t.value, name, [['type', str], ['key', str], ['vote', intIn([1, -1])]]);
    case 'question':
      if (!isWidgetAuthor) return "You can't edit a question unless you are the author.";
      return dictOnly(t.value, name, [['type', str], ['question', str]]);
    case 'new_option':
      return dictOnly(t.value, name, [['type', str], ['option', str], ['idx', intRange(0, MAX_IDX)]]);
    default:
      return `Unknown type for poll data: ${t.type}`;
  }
}

/** The error Zulip gives for a to-do list submessage, or null when it is acceptable. */
export function todoDataError(data: unknown, isWidgetAuthor: boolean): string | null {
  const name = 'todo data';
  const t = typed(data, name);
  if ('error' in t) return t.error;
  switch (t.type) {
    case 'new_task':
      return dictOnly(t.value, name, [['type', str], ['key', intRange(0, MAX_IDX)], ['task', str], ['desc', str], ['completed', bool]]);
    case 'strike':
      return dictOnly(t.value, name, [['type', str], ['key', str]]);
    case 'new_task_list_title':
      if (!isWidgetAuthor) return "You can't edit the task list title unless you are the author.";
      return dictOnly(t.value, name, [['type', str], ['title', str]]);
    default:
      return `Unknown type for todo data: ${t.type}`;
  }
}

/** The widget type a message's `widget` submessage names (Zulip's get_widget_type). */
export function widgetTypeOf(widgetContent: string | undefined): string | undefined {
  if (widgetContent === undefined) return undefined;
  try {
    const data = JSON.parse(widgetContent) as unknown;
    return isDict(data) && typeof data.widget_type === 'string' ? data.widget_type : undefined;
  } catch {
    return undefined;
  }
}
