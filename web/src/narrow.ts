// Narrows: the views of the app, Zulip's URL hash scheme (#narrow/channel/42-general/topic/lunch)
// and the search box's operators, all turned into the `narrow` terms of GET /messages.

export interface Term {
  operator: string;
  operand: string | number | number[];
  negated?: boolean;
}

export type View =
  | { kind: 'inbox' }
  | { kind: 'recent' }
  | { kind: 'narrow'; terms: Term[]; near?: number; search?: string }
  | { kind: 'settings'; tab: string }
  | { kind: 'admin'; tab: string }
  | { kind: 'channels'; tab: string };

/** Zulip's hash encoding: percent-encoding with "." in place of "%". */
export function encodeHash(s: string): string {
  return encodeURIComponent(s)
    .replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`)
    .replace(/\./g, '%2E')
    .replace(/%/g, '.');
}

export function decodeHash(s: string): string {
  try {
    return decodeURIComponent(s.replace(/\.([0-9A-Fa-f]{2})/g, '%$1'));
  } catch {
    return s;
  }
}

export function channelHash(id: number, name: string): string {
  return `#narrow/channel/${id}-${encodeHash(name.replace(/ /g, '-'))}`;
}
export function topicHash(id: number, name: string, topic: string): string {
  return `${channelHash(id, name)}/topic/${encodeHash(topic)}`;
}
export function dmHash(ids: number[], names: string[]): string {
  const label = ids.length === 1 ? names[0]?.replace(/ /g, '-') ?? 'user' : ids.length > 1 ? 'group' : 'me';
  return `#narrow/dm/${ids.join(',')}-${encodeHash(label ?? '')}`;
}
export function nearHash(base: string, id: number): string {
  return `${base}/near/${id}`;
}

const OPERATOR_ALIASES: Record<string, string> = { stream: 'channel', subject: 'topic', 'pm-with': 'dm', streams: 'channels' };

/** A location hash to a view; unknown hashes give the combined feed. */
export function parseHash(hash: string, channelIdByName: (name: string) => number | undefined, userIdByEmail: (email: string) => number | undefined = () => undefined): View {
  const h = hash.replace(/^#/, '');
  if (h === 'inbox') return { kind: 'inbox' };
  // recent_topics: the older name of Zulip's view, still in links and bookmarks.
  if (h === 'recent' || h === 'recent_topics') return { kind: 'recent' };
  if (h.startsWith('settings')) return { kind: 'settings', tab: h.split('/')[1] ?? 'profile' };
  if (h.startsWith('organization')) return { kind: 'admin', tab: h.split('/')[1] ?? 'users' };
  // Zulip's channel browser (#streams/… in older links): a tab (#channels alone is the subscribed
  // one) or a channel's settings (#channels/42/general/personal), as channels.tsx reads them.
  if (/^(channels|streams)(\/|$)/.test(h)) return { kind: 'channels', tab: h.split('/').slice(1).join('/') || 'subscribed' };
  if (!h.startsWith('narrow/')) return { kind: 'narrow', terms: [] };
  const parts = h.split('/').slice(1);
  const terms: Term[] = [];
  let near: number | undefined;
  for (let i = 0; i + 1 < parts.length; i += 2) {
    let op = parts[i]!;
    const negated = op.startsWith('-');
    if (negated) op = op.slice(1);
    op = OPERATOR_ALIASES[op] ?? op;
    const raw = decodeHash(parts[i + 1]!);
    if (op === 'near' || op === 'with' || op === 'id') {
      const id = Number(raw);
      if (Number.isInteger(id)) {
        near = id;
        if (op === 'id') terms.push({ operator: 'id', operand: id });
      }
      continue;
    }
    if (op === 'channel') {
      const m = /^(\d+)(-|$)/.exec(raw);
      const id = m ? Number(m[1]) : channelIdByName(raw);
      terms.push({ operator: 'channel', operand: id ?? raw, negated });
    } else if (op === 'dm' || op === 'dm-including' || op === 'sender') {
      const m = /^([\d,]+)(-|$)/.exec(raw);
      const ids = m ? m[1]!.split(',').filter(Boolean).map(Number) : undefined;
      const operand = ids ? (op === 'dm' ? ids : ids[0]!) : peopleOperand(op, raw, userIdByEmail);
      terms.push({ operator: op, operand: operand ?? raw, negated });
    } else {
      terms.push({ operator: op, operand: raw, negated });
    }
  }
  const search = terms.filter((t) => t.operator === 'search').map((t) => String(t.operand)).join(' ');
  return { kind: 'narrow', terms, near, search: search || undefined };
}

/**
 * The people an operand of dm, sender or dm-including names by email (comma-separated), as ids:
 * a list for dm, one id for the others; undefined unless every email is known (and, but for dm,
 * there is exactly one). Links and the search box both write people so.
 */
export function peopleOperand(op: string, raw: string, userIdByEmail: (email: string) => number | undefined): number | number[] | undefined {
  const ids = raw.split(',').map((e) => userIdByEmail(e.trim()));
  if (!ids.length || ids.some((id) => id === undefined)) return undefined;
  if (op === 'dm') return ids as number[];
  return ids.length === 1 ? ids[0] : undefined;
}

/** A view back to its hash, so that the address bar and the back button follow the app. */
export function viewHash(view: View, channelName: (id: number) => string, userName: (id: number) => string): string {
  if (view.kind === 'inbox') return '#inbox';
  if (view.kind === 'recent') return '#recent';
  if (view.kind === 'settings') return `#settings/${view.tab}`;
  if (view.kind === 'admin') return `#organization/${view.tab}`;
  if (view.kind === 'channels') return `#channels/${view.tab}`;
  if (view.terms.length === 0) return view.near ? `#narrow/near/${view.near}` : '#feed';
  let out = '#narrow';
  for (const t of view.terms) {
    const op = `${t.negated ? '-' : ''}${t.operator}`;
    if (t.operator === 'channel' && typeof t.operand === 'number') out += `/${op}/${t.operand}-${encodeHash(channelName(t.operand).replace(/ /g, '-'))}`;
    else if (t.operator === 'dm' && Array.isArray(t.operand)) out += `/${op}/${t.operand.join(',')}-${t.operand.length === 1 ? encodeHash(userName(t.operand[0]!).replace(/ /g, '-')) : 'group'}`;
    else out += `/${op}/${encodeHash(String(t.operand))}`;
  }
  if (view.near) out += `/near/${view.near}`;
  return out;
}

/** The search box: Zulip's operators (channel:, topic:, dm:, sender:, is:, has:, -negation); the rest is text. */
export function parseSearch(query: string): Term[] {
  const tokens = query.match(/-?[a-z-]+:"[^"]*"|-?[a-z-]+:\S+|"[^"]*"|\S+/gi) ?? [];
  const terms: Term[] = [];
  const text: string[] = [];
  for (const tok of tokens) {
    const m = /^(-?)([a-z-]+):(.*)$/i.exec(tok);
    if (m && m[3] !== '') {
      const op = OPERATOR_ALIASES[m[2]!.toLowerCase()] ?? m[2]!.toLowerCase();
      const operand = m[3]!.replace(/^"(.*)"$/, '$1');
      terms.push({ operator: op, operand, negated: m[1] === '-' });
    } else {
      // A quoted phrase keeps its quotes: the server then matches the words together, in order.
      text.push(tok);
    }
  }
  if (text.length) terms.push({ operator: 'search', operand: text.join(' ') });
  return terms;
}

export function termsToSearch(terms: Term[], channelName: (id: number) => string, userEmail: (id: number) => string): string {
  return terms
    .map((t) => {
      if (t.operator === 'search') return String(t.operand);
      let operand: string;
      if (t.operator === 'channel' && typeof t.operand === 'number') operand = channelName(t.operand);
      else if (Array.isArray(t.operand)) operand = t.operand.map(userEmail).join(',');
      else if (t.operator === 'sender' && typeof t.operand === 'number') operand = userEmail(t.operand);
      else operand = String(t.operand);
      return `${t.negated ? '-' : ''}${t.operator}:${/\s/.test(operand) ? `"${operand}"` : operand}`;
    })
    .join(' ');
}

// The conversation a view shows: its channel, topic or direct-message people (terms not negated).
export function channelTerm(v: View): number | undefined {
  if (v.kind !== 'narrow') return undefined;
  const t = v.terms.find((x) => x.operator === 'channel' && !x.negated);
  return typeof t?.operand === 'number' ? t.operand : undefined;
}
export function topicTerm(v: View): string | undefined {
  if (v.kind !== 'narrow') return undefined;
  const t = v.terms.find((x) => x.operator === 'topic' && !x.negated);
  return t ? String(t.operand) : undefined;
}
export function dmTerm(v: View): number[] | undefined {
  if (v.kind !== 'narrow') return undefined;
  const t = v.terms.find((x) => x.operator === 'dm' && !x.negated);
  return Array.isArray(t?.operand) ? t.operand : undefined;
}
