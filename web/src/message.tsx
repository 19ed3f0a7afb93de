// One message of the feed (role=article): sender, time, rendered content, reactions, and the
// actions (react, star, quote, copy link, edit, delete, history) of the message being pointed at.
import { useEffect, useRef, useState } from 'preact/hooks';
import { Component } from 'preact';
import type { ComponentType } from 'preact';
import { signal } from '@preact/signals';
import { api } from './api';
import { deferUploadSources } from './uploads';
import { dmHash, topicHash } from './narrow';
import { channelName, dmOthers, me, Message, Reaction, realm, selectedId, showToast, userName, userSettings } from './state';
import { composeApi } from './compose';
import { Confirm } from './confirm';
import { openProfile } from './profile';

export function emojiChar(code: string): string {
  try {
    return code
      .split('-')
      .map((h) => String.fromCodePoint(parseInt(h, 16)))
      .join('');
  } catch {
    return '?';
  }
}

// Small inline icons (fonts on many systems lack emoji glyphs for these).
const ICONS: Record<string, string> = {
  link: 'M10 14a4 4 0 0 0 5.7 0l3-3a4 4 0 0 0-5.7-5.7l-1 1M14 10a4 4 0 0 0-5.7 0l-3 3a4 4 0 0 0 5.7 5.7l1-1',
  trash: 'M4 7h16M9 7V4h6v3M6 7l1 13h10l1-13',
  history: 'M12 7v5l3 2M3 12a9 9 0 1 0 3-6.7L3 8M3 3v5h5',
  edit: 'M4 20h4L19 9l-4-4L4 16v4z',
  smile: 'M12 21a9 9 0 1 0 0-18 9 9 0 0 0 0 18zM8 14s1.5 2 4 2 4-2 4-2M9 9h.01M15 9h.01',
  quote: 'M4 18h6v-6H6c0-3 1-4 4-5M14 18h6v-6h-4c0-3 1-4 4-5',
  star: 'M12 3l2.8 5.8 6.2.9-4.5 4.4 1 6.3L12 17.5 6.5 20.4l1-6.3L3 9.7l6.2-.9z',
};
export function Icon({ name, filled }: { name: string; filled?: boolean }) {
  return (
    <svg width="16" height="16" viewBox="0 0 24 24" fill={filled ? 'currentColor' : 'none'} stroke="currentColor" stroke-width="2" stroke-linecap="round" stroke-linejoin="round" aria-hidden="true">
      <path d={ICONS[name]} />
    </svg>
  );
}

export function messageLink(m: Message): string {
  const base = m.type === 'stream' ? topicHash(m.stream_id!, channelName(m.stream_id!), m.subject) : dmHash(dmOthers(m).map((r) => r.id), dmOthers(m).map((r) => r.full_name));
  return `${location.origin}${location.pathname}${base}/near/${m.id}`;
}

/**
 * A "/me" message's text as it follows the sender's name ("Bob waves"): its paragraph without the
 * "/me ", as Zulip's message list cuts it; undefined when the rendering is not one such paragraph.
 */
function statusHtml(html: string): string | undefined {
  return html.startsWith('<p>/me ') && html.endsWith('</p>') && !html.includes('<p>', 3) ? html.slice(7, -4) : undefined;
}

// Uploaded files load through temporary URLs (uploads.ts), never with the key in their address.
// Unicode emoji come as <span class="emoji emoji-1f355">:pizza:</span> (Zulip's sprite classes):
// show the character itself instead of the name.
function prepareHtml(html: string): string {
  if (html.includes('class="katex')) loadKatexCss();
  if (html.includes('class="emoji emoji-')) {
    html = html.replace(/(<span[^>]*class="emoji emoji-([0-9a-f-]+)"[^>]*>):[^<:]*:(<\/span>)/g, (_all, open: string, code: string, close: string) => `${open}${emojiChar(code)}${close}`);
  }
  return deferUploadSources(html);
}

// KaTeX's stylesheet, linked the first time a message shows math (its name comes from the page).
let katexLoaded = false;
function loadKatexCss(): void {
  if (katexLoaded) return;
  katexLoaded = true;
  const href = document.querySelector<HTMLMetaElement>('meta[name="confab-katex-css"]')?.content;
  if (!href) return;
  const link = document.createElement('link');
  link.rel = 'stylesheet';
  link.href = href;
  document.head.appendChild(link);
}

async function openUpload(path: string): Promise<void> {
  try {
    const res = await api.get(path.replace(/^\/user_uploads\//, '/user_uploads/'));
    window.open(res.url, '_blank', 'noopener');
  } catch (e) {
    showToast(e instanceof Error ? e.message : 'The file cannot be opened.');
  }
}

function onContentClick(e: MouseEvent): void {
  const el = e.target as HTMLElement;
  const header = el.closest('.spoiler-header');
  if (header) {
    header.parentElement?.classList.toggle('spoiler-open');
    return;
  }
  const a = el.closest('a');
  const href = a?.getAttribute('href') ?? '';
  if (href.startsWith('/user_uploads/')) {
    e.preventDefault();
    void openUpload(href);
  }
}

type PickerProps = { onPick: (name: string, code: string, type: string) => void; onClose: () => void };
const Picker = signal<ComponentType<PickerProps> | null>(null);
export function loadPicker(): void {
  if (!Picker.value) void import('./picker').then((m) => (Picker.value = m.default));
}

function toggleReaction(m: Message, name: string, code: string, type: string): void {
  const mine = m.reactions.some((r) => r.emoji_code === code && r.reaction_type === type && r.user_id === me.value.user_id);
  const params = { emoji_name: name, emoji_code: code, reaction_type: type };
  const p = mine ? api.del(`/messages/${m.id}/reactions`, params) : api.post(`/messages/${m.id}/reactions`, params);
  p.catch((e) => showToast(e.message));
}

function ReactionButton({ m, group }: { m: Message; group: Reaction[] }) {
  const r = group[0]!;
  const mine = group.some((x) => x.user_id === me.value.user_id);
  const who = group.map((x) => userName(x.user_id)).join(', ');
  const custom = r.reaction_type === 'realm_emoji' ? realm.value.emoji[r.emoji_code] : undefined;
  return (
    <button type="button" class={`reaction${mine ? ' mine' : ''}`} aria-pressed={mine} title={`${who} reacted with :${r.emoji_name}:`} aria-label={`${r.emoji_name} ${group.length}`} onClick={() => toggleReaction(m, r.emoji_name, r.emoji_code, r.reaction_type)}>
      {custom ? <img src={custom.source_url} alt={`:${r.emoji_name}:`} class="emoji" /> : r.reaction_type === 'unicode_emoji' ? <span class="emoji-char">{emojiChar(r.emoji_code)}</span> : `:${r.emoji_name}:`} {group.length}
    </button>
  );
}

function EditForm({ m, onDone }: { m: Message; onDone: () => void }) {
  const [content, setContent] = useState<string | null>(null);
  const [subject, setSubject] = useState(m.subject);
  const [error, setError] = useState('');
  const text = useRef<HTMLTextAreaElement>(null);
  useEffect(() => {
    void api.get(`/messages/${m.id}`, { apply_markdown: false }).then((r) => setContent(r.message.content), (e) => setError(e.message));
  }, [m.id]);
  // The text takes the focus once, when it has loaded (a disabled box cannot take it before): not
  // at every render, which took it from the topic's field at each key typed there.
  const loaded = content !== null;
  useEffect(() => void (loaded && text.current?.focus()), [loaded]);
  // Saved from the keyboard as compose sends: Enter when "Enter sends" is on (Shift+Enter a new
  // line), Ctrl/Cmd+Enter always. Esc anywhere in the form cancels.
  const enterSends = userSettings.value.enter_sends !== false;
  const onTextKey = (e: KeyboardEvent) => {
    if (e.key !== 'Enter' || e.isComposing) return;
    if (e.ctrlKey || e.metaKey || (enterSends && !e.shiftKey && !e.altKey)) {
      e.preventDefault();
      (e.currentTarget as HTMLTextAreaElement).form?.requestSubmit();
    }
  };
  const save = async (e: Event) => {
    e.preventDefault();
    try {
      const params: Record<string, string> = {};
      if (content !== null) params.content = content;
      if (m.type === 'stream' && subject !== m.subject) {
        params.topic = subject;
        params.propagate_mode = 'change_one';
      }
      await api.patch(`/messages/${m.id}`, params);
      onDone();
    } catch (err) {
      setError(err instanceof Error ? err.message : String(err));
    }
  };
  return (
    <form class="edit" onSubmit={save} onKeyDown={(e) => e.key === 'Escape' && (e.stopPropagation(), onDone())}>
      {m.type === 'stream' ? (
        <label>
          Topic <input value={subject} onInput={(e) => setSubject(e.currentTarget.value)} />
        </label>
      ) : null}
      <label class="sr-only" for={`edit-${m.id}`}>
        Edited text
      </label>
      <textarea id={`edit-${m.id}`} ref={text} value={content ?? ''} disabled={!loaded} onInput={(e) => setContent(e.currentTarget.value)} rows={3} onKeyDown={onTextKey} />
      {error ? <p class="error" role="alert">{error}</p> : null}
      <div class="row">
        <button type="submit" class="primary">
          Save
        </button>
        <button type="button" onClick={onDone}>
          Cancel
        </button>
      </div>
    </form>
  );
}

function History({ m, onClose }: { m: Message; onClose: () => void }) {
  const [rows, setRows] = useState<any[] | null>(null);
  useEffect(() => {
    void api.get(`/messages/${m.id}/history`).then((r) => setRows(r.message_history), () => setRows([]));
  }, [m.id]);
  return (
    <div class="history" role="region" aria-label="Edit history">
      {rows === null ? <p>Loading…</p> : rows.map((h, i) => <div key={i} class="rendered" dangerouslySetInnerHTML={{ __html: deferUploadSources(h.rendered_content ?? h.topic ?? '') }} />)}
      <button type="button" onClick={onClose}>
        Close history
      </button>
    </div>
  );
}

// On a phone's width the toolbar does not fit beside the sender's name: shown on hover it wraps
// the line and moves the message under the pointer, so a tap meant to select the message landed
// on whatever action slid there. There the toolbar comes with the selection (a tap) instead.
const hoverShowsActions = matchMedia('(min-width: 761px)');

// Formatters made once: toLocaleString builds a new one on every call, which is slow in a long feed.
const timeFormat = new Intl.DateTimeFormat(undefined, { hour: '2-digit', minute: '2-digit' });
const dateFormat = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' });

type MessageProps = { m: Message; cont: boolean; unreadNow: boolean };

function MessageView({ m, cont, unreadNow }: MessageProps) {
  const [editing, setEditing] = useState(false);
  const [picker, setPicker] = useState(false);
  const [history, setHistory] = useState(false);
  // Deleting asks first, in the page (Confirm).
  const [confirmDelete, setConfirmDelete] = useState(false);
  // The action buttons exist only for the message being pointed at, focused or selected: a
  // thousand messages do not each carry a toolbar.
  const [active, setActive] = useState(false);
  // Not while the message is being edited: its form has its own buttons (Save, Cancel), and the
  // toolbar's beside them were ones to misclick (a second Edit, Delete).
  const showActions = (active || picker || selectedId.value === m.id) && !confirmDelete && !editing;
  const status = m.is_me_message ? statusHtml(m.match_content ?? m.content) : undefined;
  const own = m.sender_id === me.value.user_id;
  const starred = m.flags.includes('starred');
  const groups = new Map<string, Reaction[]>();
  for (const r of m.reactions) groups.set(`${r.reaction_type}:${r.emoji_code}`, [...(groups.get(`${r.reaction_type}:${r.emoji_code}`) ?? []), r]);
  const time = new Date(m.timestamp * 1000);
  const P = Picker.value;
  // The picker closed (an emoji picked, or Esc): the keyboard goes on from the message, not the page's top.
  const self = useRef<HTMLElement>(null);
  const closePicker = () => {
    setPicker(false);
    self.current?.focus({ preventScroll: true });
  };
  return (
    <article
      ref={self}
      class={`msg${cont ? ' cont' : ''}${selectedId.value === m.id ? ' selected' : ''}${unreadNow ? ' unread' : ''}${picker ? ' open' : ''}`}
      data-message-id={m.id}
      tabIndex={-1}
      aria-labelledby={`sender-${m.id}`}
      onClick={() => (selectedId.value = m.id)}
      onMouseEnter={() => hoverShowsActions.matches && setActive(true)}
      onMouseLeave={() => setActive(false)}
      onFocusIn={() => setActive(true)}
    >
      <span class="avatar" aria-hidden="true">
        {(m.sender_full_name || '?').trim().charAt(0).toUpperCase()}
      </span>
      <div class="body">
        <div class={status === undefined || editing ? 'meta' : 'meta status'}>
          {/* Out of the Tab order, which goes from a message to its actions: from the keyboard, u.
              In a sender's run only screen readers get it: it names the message. */}
          <button type="button" class={cont ? 'sender sr-only' : 'sender'} id={`sender-${m.id}`} tabIndex={-1} onClick={() => openProfile(m.sender_id)}>
            {m.sender_full_name}
          </button>
          {status !== undefined && !editing ? ' ' : null}
          {status !== undefined && !editing ? <span class="rendered" onClick={onContentClick} dangerouslySetInnerHTML={{ __html: prepareHtml(status) }} /> : null}
          <time dateTime={time.toISOString()} title={dateFormat.format(time)}>
            {timeFormat.format(time)}
          </time>
          {m.last_edit_timestamp ? <span class="muted">(edited)</span> : null}
          {starred ? <span aria-label="starred">★</span> : null}
          {showActions ? <span class="actions">
            <button type="button" aria-label="Add reaction" title="Add reaction" onClick={() => (loadPicker(), setPicker(!picker))}>
              <Icon name="smile" />
            </button>
            <button type="button" aria-label={starred ? 'Unstar' : 'Star'} title={starred ? 'Unstar' : 'Star'} onClick={() => void api.post('/messages/flags', { messages: [m.id], op: starred ? 'remove' : 'add', flag: 'starred' })}>
              <Icon name="star" filled={starred} />
            </button>
            <button type="button" aria-label="Quote and reply" title="Quote and reply" onClick={() => composeApi.quote(m)}>
              <Icon name="quote" />
            </button>
            <button
              type="button"
              aria-label="Copy link"
              title="Copy link"
              onClick={() => {
                void navigator.clipboard?.writeText(messageLink(m)).then(
                  () => showToast('Link copied'),
                  () => showToast(messageLink(m)),
                );
              }}
            >
              <Icon name="link" />
            </button>
            {own ? (
              <button type="button" aria-label="Edit" title="Edit" onClick={() => setEditing(true)}>
                <Icon name="edit" />
              </button>
            ) : null}
            {own || me.value.is_admin ? (
              <button
                type="button"
                aria-label="Delete"
                title="Delete"
                onClick={() => setConfirmDelete(true)}
              >
                <Icon name="trash" />
              </button>
            ) : null}
            {m.last_edit_timestamp || m.last_moved_timestamp ? (
              <button type="button" aria-label="View edit history" title="View edit history" onClick={() => setHistory(!history)}>
                <Icon name="history" />
              </button>
            ) : null}
          </span> : null}
        </div>
        {editing ? <EditForm m={m} onDone={() => (setEditing(false), self.current?.focus())} /> : status !== undefined ? null : <div class="rendered" onClick={onContentClick} dangerouslySetInnerHTML={{ __html: prepareHtml(m.match_content ?? m.content) }} />}
        {history ? <History m={m} onClose={() => setHistory(false)} /> : null}
        {confirmDelete ? (
          <Confirm
            question="Delete this message?"
            action="Delete"
            onConfirm={() => void api.del(`/messages/${m.id}`).then(() => setConfirmDelete(false), (e) => (setConfirmDelete(false), showToast(e.message)))}
            onCancel={() => (setConfirmDelete(false), self.current?.focus())}
          />
        ) : null}
        {groups.size > 0 ? (
          <div class="reactions">
            {[...groups.values()].map((g) => (
              <ReactionButton key={`${g[0]!.reaction_type}:${g[0]!.emoji_code}`} m={m} group={g} />
            ))}
          </div>
        ) : null}
        {picker && P ? (
          <P
            onPick={(name, code, type) => {
              closePicker();
              toggleReaction(m, name, code, type);
            }}
            onClose={closePicker}
          />
        ) : null}
      </div>
    </article>
  );
}

// A message re-renders only when it changed (the feed array keeps unchanged messages' objects).
export class MemoMessage extends Component<MessageProps> {
  override shouldComponentUpdate(next: MessageProps): boolean {
    return next.m !== this.props.m || next.cont !== this.props.cont || next.unreadNow !== this.props.unreadNow;
  }
  override render() {
    return <MessageView {...this.props} />;
  }
}
