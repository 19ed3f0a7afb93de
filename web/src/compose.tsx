// Compose: a channel and topic or direct recipients, the message with Markdown preview, typeahead
// for topics, @mentions, #channels and :emoji:, typing notifications, file uploads (button, drop,
// paste) and drafts saved through the drafts API when a message is left unsent.
import { useEffect, useRef, useState } from 'preact/hooks';
import { effect, signal } from '@preact/signals';
import { api, upload } from './api';
import { allStreams, channelName, composeOpen, drafts, matchesTerms, me, Message, realm, subs, topicKey, topicsByStream, typing, dmKeyOf, userName, users, userSettings, view } from './state';
import { fetchTopics } from './feed_loading';
import { goTo } from './navigator';
import { dmHash, topicHash, type Term, type View } from './narrow';
import { deferUploadSources } from './uploads';

type Mode = 'stream' | 'dm';
const mode = signal<Mode>('stream');
const streamId = signal<number | null>(null);
const topic = signal('');
const to = signal<number[]>([]);
const content = signal('');
const focusTarget = signal<'' | 'topic' | 'message' | 'to'>('');
// The last message sent went where the open view does not show it: where, and a link there.
const sentElsewhere = signal<{ label: string; href: string } | null>(null);
// What is typed in the To field and not yet picked from its suggestions.
const toText = signal('');

let emojiNames: Array<[string, string]> | null = null;

function focusSoon(which: 'topic' | 'message' | 'to'): void {
  focusTarget.value = which;
}

// The draft this compose box was restored from (updated in place, deleted once sent).
let draftId: number | null = null;

function saveDraft(): void {
  const text = content.value.trim();
  const id = draftId;
  draftId = null;
  if (!text) return;
  const draft =
    mode.value === 'stream' && streamId.value !== null
      ? { type: 'stream', to: [streamId.value], topic: topic.value, content: text, timestamp: Math.floor(Date.now() / 1000) }
      : { type: 'private', to: to.value, topic: '', content: text, timestamp: Math.floor(Date.now() / 1000) };
  if (id !== null) void api.patch(`/drafts/${id}`, { draft }).catch(() => {});
  else void api.post('/drafts', { drafts: [draft] }).catch(() => {});
}

/** The saved draft of the conversation now in compose, put back into the box. */
function restoreDraft(): void {
  if (content.value.trim()) return;
  for (const d of drafts.value.values()) {
    const same =
      mode.value === 'stream'
        ? d.type === 'stream' && d.to[0] === streamId.value && d.topic.toLowerCase() === topic.value.toLowerCase()
        : d.type === 'private' && dmKeyOf(d.to) === dmKeyOf(to.value);
    if (same) {
      content.value = d.content;
      draftId = d.id;
      return;
    }
  }
}

// Compose follows the open narrow: its channel (and topic), or its direct conversation.
let lastView: unknown = null;
effect(() => {
  const v = view.value;
  if (v === lastView) return;
  lastView = v;
  sentElsewhere.value = null;
  toText.value = '';
  if (content.value.trim()) {
    saveDraft();
    content.value = '';
  }
  draftId = null;
  if (v.kind !== 'narrow') {
    composeOpen.value = false;
    return;
  }
  const addressed = addressTo(v);
  composeOpen.value = addressed !== null;
  if (addressed === 'topic' || addressed === 'dm') restoreDraft();
});

/** Compose addressed to the view's conversation: its channel (and topic), or its direct one. */
function addressTo(v: View): 'channel' | 'topic' | 'dm' | null {
  if (v.kind !== 'narrow' || v.search) return null;
  const ch = v.terms.find((t) => t.operator === 'channel' && !t.negated);
  const tp = v.terms.find((t) => t.operator === 'topic' && !t.negated);
  const dm = v.terms.find((t) => t.operator === 'dm' && !t.negated);
  if (typeof ch?.operand === 'number') {
    mode.value = 'stream';
    streamId.value = ch.operand;
    topic.value = tp ? String(tp.operand) : '';
    return tp ? 'topic' : 'channel';
  }
  if (Array.isArray(dm?.operand)) {
    mode.value = 'dm';
    const others = dm.operand.filter((id) => id !== me.value.user_id);
    // A conversation with oneself is addressed to oneself.
    to.value = others.length ? others : [me.value.user_id];
    return 'dm';
  }
  return null;
}

export const composeApi = {
  newTopic(): void {
    mode.value = 'stream';
    // The channel in compose, if one may post there (subscribed, or a public one being viewed).
    if (streamId.value === null || !(subs.value.has(streamId.value) || allStreams.value.has(streamId.value))) streamId.value = [...subs.value.keys()][0] ?? null;
    topic.value = '';
    composeOpen.value = true;
    focusSoon('topic');
  },
  newDm(ids: number[]): void {
    mode.value = 'dm';
    toText.value = '';
    to.value = ids.filter((id) => id !== me.value.user_id);
    composeOpen.value = true;
    focusSoon(ids.length ? 'message' : 'to');
  },
  replyTo(m: Message): void {
    if (m.type === 'stream') {
      mode.value = 'stream';
      streamId.value = m.stream_id!;
      topic.value = m.subject;
    } else {
      mode.value = 'dm';
      to.value = Array.isArray(m.display_recipient) ? m.display_recipient.map((r) => r.id).filter((id) => id !== me.value.user_id) : [];
    }
    composeOpen.value = true;
    focusSoon('message');
  },
  quote(m: Message): void {
    composeApi.replyTo(m);
    void api.get(`/messages/${m.id}`, { apply_markdown: false }).then((r) => {
      const quoted = `@_**${m.sender_full_name}|${m.sender_id}** said:\n\`\`\`quote\n${r.message.content}\n\`\`\`\n`;
      content.value = content.value ? `${content.value}\n${quoted}` : quoted;
      focusSoon('message');
    });
  },
  close(): void {
    const v = view.value;
    const inConversation = v.kind === 'narrow' && !v.search && v.terms.some((t) => (t.operator === 'channel' || t.operator === 'dm') && !t.negated);
    if (!inConversation) {
      composeOpen.value = false;
      return;
    }
    // In a conversation's view compose stays; Esc takes back a new topic or another recipient
    // chosen and left without a word written, so the box addresses the view again (with words
    // written, they stay addressed where they were meant to go).
    if (!content.value.trim()) addressTo(v);
  },
};

/**
 * After a send: the sender sees where the message went. From the inbox or recent conversations
 * (no feed) the app opens its conversation; from a view that does not show it (a new topic started
 * in another topic, a direct message written from a channel), a notice links to it, as Zulip's
 * "sent to a conversation you are not viewing" does.
 */
function showWhereSent(id: number, sent: { streamId: number; topic: string } | { to: number[] }): void {
  const mine = me.value.user_id;
  const terms: Term[] = 'streamId' in sent ? [{ operator: 'channel', operand: sent.streamId }, { operator: 'topic', operand: sent.topic }] : [{ operator: 'dm', operand: sent.to }];
  const v = view.value;
  if (v.kind !== 'narrow') return goTo({ kind: 'narrow', terms });
  const m: Message =
    'streamId' in sent
      ? { id, sender_id: mine, sender_full_name: '', sender_email: '', content: '', subject: sent.topic, stream_id: sent.streamId, display_recipient: channelName(sent.streamId), type: 'stream', timestamp: 0, reactions: [], flags: ['read'] }
      : { id, sender_id: mine, sender_full_name: '', sender_email: '', content: '', subject: '', display_recipient: [...sent.to, mine].map((uid) => ({ id: uid, email: '', full_name: userName(uid) })), type: 'private', timestamp: 0, reactions: [], flags: ['read'] };
  if (matchesTerms(m, v.terms)) return;
  sentElsewhere.value =
    'streamId' in sent
      ? { label: `#${channelName(sent.streamId)} › ${sent.topic}`, href: topicHash(sent.streamId, channelName(sent.streamId), sent.topic) }
      : { label: sent.to.map(userName).join(', '), href: dmHash(sent.to, sent.to.map(userName)) };
}

const NOTHING_TO_SEND = 'You have nothing to send!';

// ---- typing notifications: "start" at most every 10 s while typing, "stop" on send or clear ----
let typingSentAt = 0;
function typingParams(): Record<string, unknown> | null {
  // The server refuses notifications the user's own settings turn off: do not send them.
  const settings = userSettings.value;
  if (mode.value === 'stream') {
    if (settings.send_stream_typing_notifications === false) return null;
    return streamId.value !== null && topic.value ? { type: 'stream', stream_id: streamId.value, topic: topic.value } : null;
  }
  if (settings.send_private_typing_notifications === false) return null;
  return to.value.length ? { type: 'direct', to: to.value } : null;
}
function notifyTyping(op: 'start' | 'stop'): void {
  const p = typingParams();
  if (!p) return;
  if (op === 'start') {
    if (Date.now() - typingSentAt < 10_000) return;
    typingSentAt = Date.now();
  } else {
    if (!typingSentAt) return;
    typingSentAt = 0;
  }
  void api.post('/typing', { ...p, op }).catch(() => {});
}

// ---- typeahead for @mentions, #channels and :emoji: in the message ----
interface Suggestion {
  label: string;
  insert: string;
}
function suggestionsFor(text: string, caret: number): { start: number; items: Suggestion[] } | null {
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

// The topic field: a plain textbox (a list attribute would make it a combobox) with its own
// suggestions from the channel's topics.
function TopicInput({ inputRef, topics }: { inputRef: { current: HTMLInputElement | null }; topics: string[] }) {
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
function takeTypedRecipient(): boolean {
  const q = toText.value.trim().toLowerCase();
  if (!q) return true;
  const hits = [...users.value.values()].filter((u) => u.is_active && u.user_id !== me.value.user_id && (u.full_name.toLowerCase() === q || u.email.toLowerCase() === q));
  if (hits.length !== 1) return false;
  if (!to.value.includes(hits[0]!.user_id)) to.value = [...to.value, hits[0]!.user_id];
  toText.value = '';
  return true;
}

function RecipientPicker() {
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

export function Compose() {
  const [preview, setPreview] = useState<string | null>(null);
  const [sending, setSending] = useState(false);
  const [error, setError] = useState('');
  const [uploading, setUploading] = useState(0);
  const [ta, setTa] = useState<{ start: number; items: Suggestion[] } | null>(null);
  const [taActive, setTaActive] = useState(0);
  const msgRef = useRef<HTMLTextAreaElement>(null);
  const topicRef = useRef<HTMLInputElement>(null);
  const fileRef = useRef<HTMLInputElement>(null);

  useEffect(() => {
    const t = focusTarget.value;
    if (t === 'topic' && topicRef.current) topicRef.current.focus();
    else if (t === 'message') msgRef.current?.focus();
    if (t === 'topic' || t === 'message') focusTarget.value = '';
  }, [focusTarget.value, composeOpen.value, mode.value]);

  useEffect(() => {
    if (mode.value === 'stream' && streamId.value !== null && !topicsByStream.value.has(streamId.value)) void fetchTopics(streamId.value);
  }, [streamId.value, mode.value]);

  if (!composeOpen.value) return null;
  const sortedSubs: Array<{ stream_id: number; name: string }> = [...subs.value.values()].filter((s) => !s.is_archived).sort((a, b) => a.name.localeCompare(b.name));
  // A channel one reads without being subscribed to (Zulip lets one post there): in the list too,
  // or the Channel field shows nothing.
  const viewed = streamId.value !== null && !subs.value.has(streamId.value) ? allStreams.value.get(streamId.value) : undefined;
  if (viewed && !viewed.is_archived) sortedSubs.push(viewed);
  const topics = streamId.value !== null ? (topicsByStream.value.get(streamId.value) ?? []) : [];
  const typingKey = mode.value === 'stream' && streamId.value !== null ? topicKey(streamId.value, topic.value) : dmKeyOf([...to.value, me.value.user_id]);
  const typers = [...(typing.value.get(typingKey) ?? [])];
  const enterSends = userSettings.value.enter_sends !== false;

  const send = async () => {
    const text = content.value.trim();
    if (sending) return;
    // Send with nothing written said nothing at all: as Zulip, say so and go to the box.
    if (!text) {
      setError(NOTHING_TO_SEND);
      msgRef.current?.focus();
      return;
    }
    setError('');
    let params: Record<string, unknown>;
    if (mode.value === 'stream') {
      if (streamId.value === null) return setError('Choose a channel.');
      params = { type: 'stream', to: streamId.value, topic: topic.value, content: text };
    } else {
      if (!takeTypedRecipient()) return setError(`No one is called "${toText.value.trim()}": pick a person from the list.`);
      if (!to.value.length) return setError('Add at least one person.');
      params = { type: 'direct', to: to.value, content: text };
    }
    setSending(true);
    sentElsewhere.value = null;
    const where = mode.value === 'stream' ? { streamId: streamId.value!, topic: topic.value } : { to: to.value };
    try {
      // read_by_sender: as Zulip's own web app says, so one's own message is not counted unread
      // (the server's default for an unknown client, "Mozilla" here, leaves it unread).
      const res = await api.post('/messages', { ...params, read_by_sender: true });
      if (draftId !== null) void api.del(`/drafts/${draftId}`).catch(() => {});
      draftId = null;
      notifyTyping('stop');
      content.value = '';
      setPreview(null);
      setTa(null);
      showWhereSent(res.id, where);
    } catch (e) {
      setError(e instanceof Error ? e.message : String(e));
    } finally {
      setSending(false);
      msgRef.current?.focus();
    }
  };

  const insertText = (s: string) => {
    const el = msgRef.current;
    const at = el ? el.selectionStart : content.value.length;
    content.value = content.value.slice(0, at) + s + content.value.slice(at);
  };

  const uploadFiles = async (files: FileList | File[]) => {
    for (const f of Array.from(files)) {
      setUploading((n) => n + 1);
      try {
        const res = await upload(f);
        insertText(`[${f.name}](${res.url}) `);
      } catch (e) {
        setError(e instanceof Error ? e.message : 'Upload failed');
      } finally {
        setUploading((n) => n - 1);
      }
    }
  };

  const pickSuggestion = (s: Suggestion) => {
    if (!ta) return;
    const el = msgRef.current!;
    const caret = el.selectionStart;
    content.value = content.value.slice(0, ta.start) + s.insert + content.value.slice(caret);
    setTa(null);
    const pos = ta.start + s.insert.length;
    requestAnimationFrame(() => el.setSelectionRange(pos, pos));
  };

  const onKeyDown = (e: KeyboardEvent) => {
    if (ta) {
      if (e.key === 'ArrowDown' || e.key === 'ArrowUp') {
        e.preventDefault();
        setTaActive((i) => (e.key === 'ArrowDown' ? Math.min(i + 1, ta.items.length - 1) : Math.max(i - 1, 0)));
        return;
      }
      if (e.key === 'Tab' || e.key === 'Enter') {
        e.preventDefault();
        pickSuggestion(ta.items[taActive] ?? ta.items[0]!);
        return;
      }
      if (e.key === 'Escape') {
        e.stopPropagation();
        setTa(null);
        return;
      }
    }
    if (e.key === 'Enter' && !e.isComposing) {
      const wantsSend = enterSends ? !e.shiftKey && !e.ctrlKey && !e.altKey : e.ctrlKey || e.metaKey;
      if (wantsSend) {
        e.preventDefault();
        void send();
      }
    }
  };

  return (
    <section
      class="compose"
      aria-label="Compose"
      onDragOver={(e) => e.preventDefault()}
      onDrop={(e) => {
        if (e.dataTransfer?.files.length) {
          e.preventDefault();
          void uploadFiles(e.dataTransfer.files);
        }
      }}
    >
      <div class="row recipient-row">
        {mode.value === 'stream' ? (
          <>
            <select aria-label="Channel" value={streamId.value ?? ''} onChange={(e) => (streamId.value = Number(e.currentTarget.value))}>
              {sortedSubs.map((s) => (
                <option key={s.stream_id} value={s.stream_id}>
                  #{s.name}
                </option>
              ))}
            </select>
            <TopicInput inputRef={topicRef} topics={topics.map((t) => t.name)} />
          </>
        ) : (
          <RecipientPicker />
        )}
      </div>
      {preview !== null ? (
        <div class="preview rendered" aria-label="Preview" role="region" dangerouslySetInnerHTML={{ __html: deferUploadSources(preview) }} />
      ) : (
        <div class="message-box">
          <textarea
            ref={msgRef}
            aria-label="Message"
            placeholder={mode.value === 'stream' ? `Message #${streamId.value !== null ? channelName(streamId.value) : ''}${topic.value ? ` › ${topic.value}` : ''}` : `Message ${to.value.map(userName).join(', ')}`}
            rows={3}
            value={content.value}
            onInput={(e) => {
              content.value = e.currentTarget.value;
              if (error === NOTHING_TO_SEND) setError('');
              notifyTyping(e.currentTarget.value ? 'start' : 'stop');
              setTa(suggestionsFor(e.currentTarget.value, e.currentTarget.selectionStart));
              setTaActive(0);
            }}
            onKeyDown={onKeyDown}
            onBlur={() => setTimeout(() => setTa(null), 150)}
            onPaste={(e) => {
              const files = e.clipboardData?.files;
              if (files && files.length) {
                e.preventDefault();
                void uploadFiles(files);
              }
            }}
          />
          {ta ? (
            <ul class="typeahead" role="listbox" aria-label="Suggestions">
              {ta.items.map((s, i) => (
                <li key={s.insert} role="option" aria-selected={i === taActive} onMouseDown={(e) => (e.preventDefault(), pickSuggestion(s))}>
                  {s.label}
                </li>
              ))}
            </ul>
          ) : null}
        </div>
      )}
      {sentElsewhere.value ? (
        <p class="sent-notice" role="status">
          Message sent to {sentElsewhere.value.label}. <a href={sentElsewhere.value.href}>Go to conversation</a>
        </p>
      ) : null}
      {typers.length ? <p class="typing muted" aria-live="polite">{typers.map(userName).join(', ')} {typers.length > 1 ? 'are' : 'is'} typing…</p> : null}
      {error ? (
        <p class="error" role="alert">
          {error}
        </p>
      ) : null}
      <div class="row">
        <button type="button" onClick={() => fileRef.current?.click()} disabled={uploading > 0}>
          {uploading ? 'Uploading…' : 'Attach files'}
        </button>
        <input
          ref={fileRef}
          type="file"
          multiple
          hidden
          onChange={(e) => {
            const files = e.currentTarget.files;
            if (files) void uploadFiles(files);
            e.currentTarget.value = '';
          }}
        />
        <button
          type="button"
          aria-pressed={preview !== null}
          onClick={async () => {
            if (preview !== null) return setPreview(null);
            try {
              const r = await api.post('/messages/render', { content: content.value || ' ' });
              setPreview(r.rendered);
            } catch (e) {
              setError(e instanceof Error ? e.message : String(e));
            }
          }}
        >
          Preview
        </button>
        <span class="muted hint">{enterSends ? 'Enter sends, Shift+Enter adds a line' : 'Ctrl+Enter sends'}</span>
        <button type="button" class="primary" onClick={() => void send()} disabled={sending}>
          Send
        </button>
      </div>
    </section>
  );
}
