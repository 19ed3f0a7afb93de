// Compose: a channel and topic or direct recipients, the message with Markdown preview, typeahead
// for topics, @mentions, #channels and :emoji:, typing notifications, file uploads (button, drop,
// paste) and drafts saved through the drafts API when a message is left unsent. The parts are in
// compose_*.ts(x): state, drafts, recipients, typeahead, typing, upload.
import { useEffect, useRef, useState } from 'preact/hooks';
import { effect } from '@preact/signals';
import { api } from './api';
import { deleteSentDraft, forgetDraft, restoreDraft, saveDraft } from './compose_drafts';
import { RecipientPicker, takeTypedRecipient, TopicInput } from './compose_recipients';
import { content, focusSoon, focusTarget, mode, sentElsewhere, streamId, to, topic, toText } from './compose_state';
import { suggestionsFor, type Suggestion } from './compose_typeahead';
import { notifyTyping } from './compose_typing';
import { useFileUploads } from './compose_upload';
import { fetchTopics } from './feed_loading';
import { dmHash, topicHash, type Term, type View } from './narrow';
import { goTo } from './navigator';
import { allStreams, channelName, composeOpen, dmKeyOf, matchesTerms, me, Message, subs, topicKey, topicsByStream, typing, userName, userSettings, view } from './state';
import { deferUploadSources } from './uploads';

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
  forgetDraft();
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
    if (!inConversation(v)) {
      composeOpen.value = false;
      return;
    }
    // In a conversation's view compose stays; Esc takes back a new topic or another recipient
    // chosen and left without a word written, so the box addresses the view again (with words
    // written, they stay addressed where they were meant to go).
    if (!content.value.trim()) addressTo(v);
  },
};

/** A conversation's view (a channel, a topic, a direct conversation): compose belongs there and stays. */
function inConversation(v: View): boolean {
  return v.kind === 'narrow' && !v.search && v.terms.some((t) => (t.operator === 'channel' || t.operator === 'dm') && !t.negated);
}

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

export function Compose() {
  const [preview, setPreview] = useState<string | null>(null);
  const [sending, setSending] = useState(false);
  const [error, setError] = useState('');
  const [ta, setTa] = useState<{ start: number; items: Suggestion[] } | null>(null);
  const [taActive, setTaActive] = useState(0);
  const msgRef = useRef<HTMLTextAreaElement>(null);
  const topicRef = useRef<HTMLInputElement>(null);
  const fileRef = useRef<HTMLInputElement>(null);
  const { uploading, uploadFiles } = useFileUploads(msgRef, setError);

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
    // The box empties as the message leaves (as Zulip's does), not when the server answers: the
    // words typed meanwhile, the next message, were wiped by the answer. A failed send puts the
    // text back unless the box has new words.
    content.value = '';
    setPreview(null);
    setTa(null);
    try {
      // read_by_sender: as Zulip's own web app says, so one's own message is not counted unread
      // (the server's default for an unknown client, "Mozilla" here, leaves it unread).
      const res = await api.post('/messages', { ...params, read_by_sender: true });
      deleteSentDraft();
      notifyTyping('stop');
      showWhereSent(res.id, where);
    } catch (e) {
      if (!content.value.trim()) content.value = text;
      setError(e instanceof Error ? e.message : String(e));
    } finally {
      setSending(false);
      msgRef.current?.focus();
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
        {/* Opened over a view it does not belong to (the Inbox, Settings, a search): Esc closed it,
            but a phone has no Esc key, so it stayed over the page. Zulip's compose has its ×. */}
        {inConversation(view.value) ? null : (
          <button type="button" class="close" aria-label="Close compose" title="Close compose (Esc)" onClick={() => composeApi.close()}>
            ×
          </button>
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
