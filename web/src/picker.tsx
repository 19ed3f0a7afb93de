// The emoji picker: loaded (with the emoji table) the first time someone adds a reaction.
import { useEffect, useRef, useState } from 'preact/hooks';
import { emoji, emojiChar } from './emoji_data';
import { realm } from './state';

const POPULAR = ['+1', 'tada', 'smile', 'heart', 'working_on_it', 'octopus', 'joy', 'thinking'];

export default function Picker({ onPick, onClose }: { onPick: (name: string, code: string, type: string) => void; onClose: () => void }) {
  const [q, setQ] = useState('');
  const ref = useRef<HTMLInputElement>(null);
  useEffect(() => ref.current?.focus(), []);
  const query = q.trim().toLowerCase().replace(/^:|:$/g, '');
  const custom = Object.values(realm.value.emoji).filter((e) => !e.deactivated && (!query || e.name.includes(query)));
  // The emoji named exactly as typed first, then names starting so, then the rest ("heart" is ❤, not ♥ hearts).
  const rank = (e: (typeof emoji)[number]) => (e.name === query || e.aliases.includes(query) ? 0 : e.name.startsWith(query) ? 1 : 2);
  const list = query ? emoji.filter((e) => e.name.includes(query) || e.aliases.some((a) => a.includes(query))).sort((a, b) => rank(a) - rank(b)).slice(0, 80) : [...POPULAR.map((n) => emoji.find((e) => e.name === n || e.aliases.includes(n))).filter((e): e is (typeof emoji)[number] => !!e), ...emoji.slice(0, 72)];
  return (
    <div class="picker" role="dialog" aria-label="Emoji picker" onKeyDown={(e) => e.key === 'Escape' && (e.stopPropagation(), onClose())}>
      <input
        ref={ref}
        aria-label="Filter emoji"
        placeholder="Filter emoji"
        value={q}
        onInput={(e) => setQ(e.currentTarget.value)}
        onKeyDown={(e) => {
          // Enter takes the first emoji shown, as in Zulip's picker.
          if (e.key !== 'Enter') return;
          e.preventDefault();
          const c = custom.find((x) => x.name === query) ?? (list.length ? undefined : custom[0]);
          const u = list[0];
          if (c) onPick(c.name, c.id, 'realm_emoji');
          else if (u) onPick(u.name, u.code, 'unicode_emoji');
        }}
      />
      <div class="grid">
        {custom.map((e) => (
          <button type="button" key={`c${e.id}`} aria-label={e.name} title={`:${e.name}:`} onClick={() => onPick(e.name, e.id, 'realm_emoji')}>
            <img src={e.source_url} alt="" class="emoji" />
          </button>
        ))}
        {list.map((e, i) => (
          <button type="button" key={`${e.code}-${i}`} aria-label={e.name} title={`:${e.name}:`} onClick={() => onPick(e.name, e.code, 'unicode_emoji')}>
            {emojiChar(e.code)}
          </button>
        ))}
      </div>
      <button type="button" onClick={onClose}>
        Close
      </button>
    </div>
  );
}
