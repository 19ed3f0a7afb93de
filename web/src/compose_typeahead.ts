// Typeahead in the message: @mentions, #channels and :emoji: (the emoji names load the first time
// one is asked for).
import { realm, subs, users } from './state';

let emojiNames: Array<[string, string]> | null = null;

export interface Suggestion {
  label: string;
  insert: string;
}
export function suggestionsFor(text: string, caret: number): { start: number; items: Suggestion[] } | null {
  const before = text.slice(0, caret);
  const m = /(^|[\s(])([@#:])([^\s@#:*]{0,30})$/.exec(before);
  if (!m) return null;
  const kind = m[2]!;
  const q = m[3]!.toLowerCase();
  const start = caret - m[3]!.length - 1;
  let items: Suggestion[] = [];
  if (kind === '@') {
    items = [...users.value.values()]
      .filter((u) => u.is_active && (u.full_name.toLowerCase().includes(q) || u.email.toLowerCase().startsWith(q)))
      .slice(0, 8)
      .map((u) => ({ label: `${u.full_name} (${u.email})`, insert: `@**${u.full_name}** ` }));
    for (const w of ['all', 'everyone', 'channel', 'topic']) if (w.startsWith(q) && q.length > 0) items.push({ label: `${w} (notify everyone)`, insert: `@**${w}** ` });
  } else if (kind === '#') {
    items = [...subs.value.values()]
      .filter((s) => s.name.toLowerCase().includes(q))
      .slice(0, 8)
      .map((s) => ({ label: s.name, insert: `#**${s.name}** ` }));
  } else {
    if (q.length < 2) return null;
    if (!emojiNames) {
      void import('./emoji_data').then((mod) => (emojiNames = mod.emojiList()));
      return null;
    }
    const custom = Object.values(realm.value.emoji)
      .filter((e) => !e.deactivated && e.name.includes(q))
      .map((e) => ({ label: `:${e.name}:`, insert: `:${e.name}: ` }));
    items = [...custom, ...emojiNames.filter(([n]) => n.includes(q)).slice(0, 8).map(([n, c]) => ({ label: `${c} :${n}:`, insert: `:${n}: ` }))].slice(0, 8);
  }
  return items.length ? { start, items } : null;
}
