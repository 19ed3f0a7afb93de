// Compose's recipient fields: the topic (with the channel's topics as suggestions) and the people
// of a direct message (chips picked from suggestions, or a name typed out in full).
import { useEffect, useRef, useState } from 'preact/hooks';
import { focusSoon, focusTarget, to, topic, toText } from './compose_state';
import { me, userName, users } from './state';

// The topic field: a plain textbox (a list attribute would make it a combobox) with its own
// suggestions from the channel's topics.
export function TopicInput({ inputRef, topics }: { inputRef: { current: HTMLInputElement | null }; topics: string[] }) {
  const [open, setOpen] = useState(false);
  const [active, setActive] = useState(0);
  const q = topic.value.toLowerCase();
  const matches = open ? topics.filter((t) => t.toLowerCase().includes(q) && t.toLowerCase() !== q).slice(0, 8) : [];
  const pick = (t: string) => {
    topic.value = t;
    setOpen(false);
  };
  return (
    <div class="topic-box">
      <input
        ref={inputRef}
        aria-label="Topic"
        placeholder="Topic"
        aria-autocomplete="list"
        aria-controls={matches.length ? 'topic-list' : undefined}
        value={topic.value}
        maxLength={60}
        onInput={(e) => {
          topic.value = e.currentTarget.value;
          setOpen(true);
          setActive(0);
        }}
        onFocus={() => setOpen(true)}
        onBlur={() => setTimeout(() => setOpen(false), 150)}
        onKeyDown={(e) => {
          // Enter goes on to the message, as in Zulip (the topic is written as typed: Tab takes a suggestion).
          if (e.key === 'Enter' && !e.isComposing) {
            e.preventDefault();
            setOpen(false);
            focusSoon('message');
            return;
          }
          if (!matches.length) return;
          if (e.key === 'ArrowDown') setActive(Math.min(active + 1, matches.length - 1));
          else if (e.key === 'ArrowUp') setActive(Math.max(active - 1, 0));
          else if (e.key === 'Tab' && matches[active] !== undefined && !e.shiftKey) pick(matches[active]!);
          else if (e.key === 'Escape') {
            e.stopPropagation();
            setOpen(false);
          } else return;
          if (e.key !== 'Tab') e.preventDefault();
        }}
      />
      {matches.length ? (
        <ul class="typeahead below" role="listbox" id="topic-list" aria-label="Topics">
          {matches.map((t, i) => (
            <li key={t} role="option" aria-selected={i === active} onMouseDown={(e) => (e.preventDefault(), pick(t))}>
              {t}
            </li>
          ))}
        </ul>
      ) : null}
    </div>
  );
}

/**
 * The person whose full name or email the To field holds exactly, added as a recipient: someone
 * who types "Zoe Quinn" and leaves the field (or presses Send) means her, as Zulip takes an email
 * typed there. True when the field is empty or became a recipient.
 */
export function takeTypedRecipient(): boolean {
  const q = toText.value.trim().toLowerCase();
  if (!q) return true;
  const hits = [...users.value.values()].filter((u) => u.is_active && u.user_id !== me.value.user_id && (u.full_name.toLowerCase() === q || u.email.toLowerCase() === q));
  if (hits.length !== 1) return false;
  if (!to.value.includes(hits[0]!.user_id)) to.value = [...to.value, hits[0]!.user_id];
  toText.value = '';
  return true;
}

export function RecipientPicker() {
  const q = toText.value;
  const setQ = (v: string) => (toText.value = v);
  const [active, setActive] = useState(0);
  const ref = useRef<HTMLInputElement>(null);
  useEffect(() => {
    if (focusTarget.value === 'to') {
      ref.current?.focus();
      focusTarget.value = '';
    }
  }, [focusTarget.value]);
  const matches = q
    ? [...users.value.values()].filter((u) => u.is_active && u.user_id !== me.value.user_id && !to.value.includes(u.user_id) && (u.full_name.toLowerCase().includes(q.toLowerCase()) || u.email.toLowerCase().startsWith(q.toLowerCase()))).slice(0, 8)
    : [];
  const pick = (id: number) => {
    to.value = [...to.value, id];
    setQ('');
    setActive(0);
  };
  return (
    <div class="to">
      {to.value.map((id) => (
        <span class="chip" key={id}>
          {userName(id)}
          <button type="button" aria-label={`Remove ${userName(id)}`} onClick={() => (to.value = to.value.filter((x) => x !== id))}>
            ×
          </button>
        </span>
      ))}
      <input
        ref={ref}
        aria-label="To"
        placeholder="Add a person"
        role="combobox"
        aria-expanded={matches.length > 0}
        aria-controls={matches.length ? 'to-list' : undefined}
        aria-autocomplete="list"
        value={q}
        onInput={(e) => setQ(e.currentTarget.value)}
        onBlur={() => takeTypedRecipient()}
        onKeyDown={(e) => {
          if (e.key === 'ArrowDown') setActive(Math.min(active + 1, matches.length - 1));
          else if (e.key === 'ArrowUp') setActive(Math.max(active - 1, 0));
          else if ((e.key === 'Enter' || e.key === 'Tab') && matches[active]) {
            e.preventDefault();
            pick(matches[active]!.user_id);
          } else if (e.key === 'Backspace' && !q && to.value.length) to.value = to.value.slice(0, -1);
          else return;
          if (e.key.startsWith('Arrow')) e.preventDefault();
        }}
      />
      {matches.length ? (
        <ul class="typeahead" role="listbox" id="to-list" aria-label="People">
          {matches.map((u, i) => (
            <li key={u.user_id} role="option" aria-selected={i === active} onMouseDown={(e) => (e.preventDefault(), pick(u.user_id))}>
              {u.full_name} <span class="muted">{u.email}</span>
            </li>
          ))}
        </ul>
      ) : null}
    </div>
  );
}
