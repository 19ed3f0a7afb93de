// The message feed of the open narrow as a virtualized list (@tanstack/virtual-core): only the rows
// near the viewport are in the page, so the client can hold thousands of loaded messages. Rows are
// the "start of this conversation" marker, a recipient header per channel/topic (or DM) group, and
// the messages (message.tsx). Older/newer history loads on scroll with the reader's place kept;
// the view follows new messages while at the bottom; messages are marked read as they come into view.
import { useEffect, useLayoutEffect, useMemo, useReducer, useRef } from 'preact/hooks';
import { elementScroll, measureElement, observeElementOffset, observeElementRect, Virtualizer, type VirtualizerOptions } from '@tanstack/virtual-core';
import { loadMore } from './feed_loading';
import { markRead } from './markread';
import { MemoMessage } from './message';
import { channelHash, dmHash, topicHash } from './narrow';
import { channelName, dmOthers, feed, feedState, Message, ownArrived, selectedId, unread, view } from './state';

// A message row continues its sender's run (`cont`) when the message before it in the same
// recipient group has the same sender: as in Zulip, the name and avatar show once for the run.
// A "/me" message neither continues a run nor is continued (Zulip's include_sender): its text
// reads as a sentence after the name, and the message after it names its sender again.
// A day changing between two messages of a group puts a date divider between them and restarts
// the run (Zulip's message list: want_date_divider, and the sender shown again).
type Row = { kind: 'start'; key: string } | { kind: 'head'; key: string; m: Message } | { kind: 'date'; key: string; m: Message } | { kind: 'msg'; key: number; m: Message; cont: boolean };

// First guesses of row heights (px) before a row is measured; measured heights replace them. Each
// is the row's height as drawn (a one-line message): a guess off by some pixels moved the message
// on screen by as much when a row inserted above it at the top of the feed was measured (a header
// guessed 40 px, drawn 46). A message continuing its sender's run has no name line.
const ESTIMATE = { start: 84, head: 46, date: 30, msg: 60, cont: 30 } as const;

/** The local calendar day of a time, as a number that differs from one day to the next. */
function dayOf(d: Date): number {
  return d.getFullYear() * 10000 + d.getMonth() * 100 + d.getDate();
}

function recipientKey(m: Message): string {
  return m.type === 'stream' ? `s${m.stream_id}\u0000${m.subject.toLowerCase()}` : `d${Array.isArray(m.display_recipient) ? m.display_recipient.map((r) => r.id).sort().join(',') : ''}`;
}

/** The rows of a feed, the index of each row's group header, and each message's row. */
function buildRows(msgs: Message[], foundOldest: boolean): { rows: Row[]; headOf: Int32Array; rowOf: Map<number, number> } {
  const rows: Row[] = [];
  const heads: number[] = [];
  const rowOf = new Map<number, number>();
  if (foundOldest && msgs.length > 0) {
    rows.push({ kind: 'start', key: 'start' });
    heads.push(-1);
  }
  let prevKey = '';
  let prevSender = -1;
  let prevDay = -1;
  let head = -1;
  for (const m of msgs) {
    const key = recipientKey(m);
    const day = dayOf(new Date(m.timestamp * 1000));
    const cont = key === prevKey && day === prevDay && m.sender_id === prevSender && !m.is_me_message;
    if (key !== prevKey) {
      head = rows.length;
      // A header's key is its first message's: kept while that message stays first of its group.
      rows.push({ kind: 'head', key: `h${m.id}`, m });
      heads.push(head);
    } else if (day !== prevDay) {
      rows.push({ kind: 'date', key: `d${m.id}`, m });
      heads.push(head);
    }
    prevKey = key;
    prevDay = day;
    prevSender = m.is_me_message ? -1 : m.sender_id;
    rowOf.set(m.id, rows.length);
    rows.push({ kind: 'msg', key: m.id, m, cont });
    heads.push(head);
  }
  return { rows, headOf: Int32Array.from(heads), rowOf };
}

/**
 * A message's day as Zulip's date divider and recipient bar say it: "Today", "Yesterday", else the
 * date (with its year when not this one's); and that day as a machine-readable date.
 */
function dayLabel(m: Message): { label: string; iso: string } {
  const when = new Date(m.timestamp * 1000);
  const now = new Date();
  const ago = dayOf(now) === dayOf(when) ? 0 : dayOf(new Date(now.getFullYear(), now.getMonth(), now.getDate() - 1)) === dayOf(when) ? 1 : 2;
  const sameYear = when.getFullYear() === now.getFullYear();
  const label = ago === 0 ? 'Today' : ago === 1 ? 'Yesterday' : when.toLocaleDateString(undefined, { month: 'short', day: 'numeric', year: sameYear ? undefined : 'numeric' });
  const iso = `${when.getFullYear()}-${String(when.getMonth() + 1).padStart(2, '0')}-${String(when.getDate()).padStart(2, '0')}`;
  return { label, iso };
}

/** Zulip's date divider, where the day changes inside a group. */
function DateDivider({ m }: { m: Message }) {
  const { label, iso } = dayLabel(m);
  return (
    <div class="date-divider">
      <time dateTime={iso}>{label}</time>
    </div>
  );
}

/** The day of a group's first message, at the right of its recipient header (Zulip's recipient bar). */
function HeaderDate({ m }: { m: Message }) {
  const { label, iso } = dayLabel(m);
  return (
    <time class="rdate" dateTime={iso}>
      {label}
    </time>
  );
}

function RecipientHeader({ m, pinned }: { m: Message; pinned?: boolean }) {
  // The pinned copy repeats the header already read out in the list: hidden from assistive
  // technology, its links out of the tab order, still clickable.
  const tab = pinned ? -1 : undefined;
  const Tag = pinned ? 'div' : 'h2';
  const hidden = pinned ? 'true' : undefined;
  if (m.type === 'stream') {
    const name = channelName(m.stream_id!);
    return (
      <Tag class={`recipient${pinned ? ' pinned' : ''}`} aria-hidden={hidden}>
        <span class="where">
          <a href={channelHash(m.stream_id!, name)} tabIndex={tab}>
            # {name}
          </a>{' '}
          ›{' '}
          <a href={topicHash(m.stream_id!, name, m.subject)} tabIndex={tab}>
            {m.subject || '(no topic)'}
          </a>
        </span>{' '}
        <HeaderDate m={m} />
      </Tag>
    );
  }
  const others = dmOthers(m);
  return (
    <Tag class={`recipient dm${pinned ? ' pinned' : ''}`} aria-hidden={hidden}>
      <span class="where">
        <a href={dmHash(others.map((r) => r.id), others.map((r) => r.full_name))} tabIndex={tab}>
          You and {others.map((r) => r.full_name).join(', ')}
        </a>
      </span>{' '}
      <HeaderDate m={m} />
    </Tag>
  );
}

type FeedVirtualizer = Virtualizer<HTMLDivElement, HTMLDivElement>;

type Place = { id: number; delta: number } | { atEnd: true };

/**
 * The reader's place before the rows change: at the bottom (then new messages are followed), or
 * the first message at or below the top of the viewport and its distance from it. Rows are keyed,
 * but the row at the top can be a header that goes away (older messages of the same topic loaded
 * above it), so the place is always held by a message.
 */
function readPlace(virt: FeedVirtualizer, rows: Row[], atEnd: boolean, el: HTMLElement | null): Place | null {
  if (atEnd) return { atEnd: true };
  // The element's own scrollTop, not the virtualizer's copy: that one is updated by the scroll
  // event, which comes at the next frame. Rows changed in between (a page of history arriving just
  // after the reader scrolled) were placed from the old position, undoing the reader's scroll.
  const offset = el ? el.scrollTop : (virt.scrollOffset ?? 0);
  const top = virt.getVirtualItemForOffset(offset);
  if (!top) return null;
  for (let i = top.index; i < rows.length && i <= top.index + 2; i++) {
    const row = rows[i]!;
    const item = virt.measurementsCache[i];
    if (row.kind === 'msg' && item) return { id: row.m.id, delta: offset - item.start };
  }
  return null;
}

/** After the rows changed: back to the bottom, or that message back where it was. */
function keepPlace(virt: FeedVirtualizer, place: Place, rowOf: Map<number, number>, el: HTMLElement | null): void {
  if ('atEnd' in place) {
    virt.scrollToEnd();
    return;
  }
  const i = rowOf.get(place.id);
  const item = i === undefined ? undefined : virt.measurementsCache[i];
  if (!item) return;
  const want = Math.max(0, item.start + place.delta);
  if (Math.abs((el ? el.scrollTop : (virt.scrollOffset ?? 0)) - want) > 1) virt.scrollToOffset(want);
}

/** Preact's binding of the framework-agnostic virtualizer: new options every render, a re-render on its changes. */
function useVirtualizer(
  options: Omit<VirtualizerOptions<HTMLDivElement, HTMLDivElement>, 'observeElementRect' | 'observeElementOffset' | 'scrollToFn' | 'onChange'>,
  afterChange: (v: FeedVirtualizer) => void,
): FeedVirtualizer {
  const [, rerender] = useReducer((n: number) => n + 1, 0);
  const full: VirtualizerOptions<HTMLDivElement, HTMLDivElement> = {
    ...options,
    observeElementRect,
    observeElementOffset,
    scrollToFn: elementScroll,
    onChange: (v) => {
      afterChange(v);
      rerender(0);
    },
  };
  const ref = useRef<FeedVirtualizer | null>(null);
  if (!ref.current) ref.current = new Virtualizer(full);
  ref.current.setOptions(full);
  const v = ref.current;
  useLayoutEffect(() => v._didMount(), [v]);
  useLayoutEffect(() => v._willUpdate());
  return v;
}

// The open feed's handle for the keyboard (app.tsx): bring a message into view, loaded or not in
// the page, and focus it once it is rendered.
let reveal: ((id: number, align: 'auto' | 'center' | 'start' | 'end') => void) | null = null;
export const feedApi = {
  reveal(id: number, align: 'auto' | 'center' | 'start' | 'end' = 'auto'): void {
    reveal?.(id, align);
  },
};

export function Feed() {
  const ref = useRef<HTMLDivElement>(null);
  const msgs = feed.value;
  const st = feedState.value;
  const unreadMap = unread.value;
  const v = view.value;
  const { rows, headOf, rowOf } = useMemo(() => buildRows(msgs, st.foundOldest), [msgs, st.foundOldest]);
  // Before the rows change: the reader's place (see keepPlace).
  const prev = useRef<{ rows: Row[]; virt: FeedVirtualizer | null }>({ rows, virt: null });
  // Whether the reader is at the bottom, following new messages: set by their scrolling, not by
  // rows growing under them (an image or reactions on the last message keep it at the bottom).
  const stick = useRef(true);
  const place = prev.current.rows !== rows && prev.current.virt ? readPlace(prev.current.virt, prev.current.rows, stick.current, ref.current) : null;
  const virt = useVirtualizer({
    count: rows.length,
    getScrollElement: () => ref.current,
    estimateSize: (i) => {
      const row = rows[i];
      return ESTIMATE[row?.kind === 'msg' && row.cont ? 'cont' : (row?.kind ?? 'msg')];
    },
    getItemKey: (i) => rows[i]?.key ?? i,
    // Whole pixels: scrollTop snaps to them, so fractional row heights would leave each scroll
    // correction for rows measured above the viewport a fraction off, adding up to a visible drift.
    measureElement: (el, entry, instance) => Math.round(measureElement(el, entry, instance)),
    overscan: 6,
  }, (inst) => {
    // Rows measured or grown while following the bottom: stay there.
    if (stick.current && inst.getDistanceFromEnd() > 1) inst.scrollToEnd();
  });
  prev.current = { rows, virt };
  useLayoutEffect(() => {
    if (place) keepPlace(virt, place, rowOf, ref.current);
    // Still near an end after the change (a short page of history, or the reader waited at the
    // top): load on without waiting for a scroll event that may never come. Each load needs new
    // messages to run again, and stops at the oldest/newest.
    const el = ref.current;
    if (!el || msgs.length === 0) return;
    if (el.scrollTop < 300) void loadMore('older');
    else if (el.scrollHeight - el.scrollTop - el.clientHeight < 300) void loadMore('newer');
  }, [rows]);
  const pinRef = useRef<HTMLDivElement>(null);
  const pinHeight = useRef(30);
  const focusWanted = useRef<number | null>(null);
  reveal = (id, align) => {
    const i = rowOf.get(id);
    if (i === undefined) return;
    focusWanted.current = id;
    virt.scrollToIndex(i, { align });
    // Already in the page (no scrolling, hence no new render to focus it after): focus it now, so
    // that Tab goes on to its actions.
    const el = ref.current?.querySelector<HTMLElement>(`article[data-message-id="${id}"]`);
    if (el) {
      focusWanted.current = null;
      el.focus({ preventScroll: true });
    }
  };
  useEffect(
    () => () => {
      reveal = null;
    },
    [],
  );

  // First load of a view: the anchor message of a near link (selected), else the first unread,
  // else the bottom.
  const last = useRef<unknown>(null);
  useLayoutEffect(() => {
    if (msgs.length === 0 || last.current === v) return;
    last.current = v;
    const near = v.kind === 'narrow' ? v.near : undefined;
    const target = near !== undefined ? msgs.find((m) => m.id >= near) : msgs.find((m) => unreadMap.has(m.id));
    stick.current = !target;
    if (target) {
      if (near !== undefined) selectedId.value = target.id;
      virt.scrollToIndex(rowOf.get(target.id)!, { align: 'center' });
    } else {
      virt.scrollToEnd();
    }
  }, [msgs]);

  // A message this person just sent comes into view, wherever the reader was (as in Zulip).
  useLayoutEffect(() => {
    const id = ownArrived.value;
    const i = id === null ? undefined : rowOf.get(id);
    if (i === undefined) return;
    ownArrived.value = null;
    virt.scrollToIndex(i, { align: 'end' });
  }, [msgs]);

  // Focus the message brought into view by the keyboard once its element exists.
  useLayoutEffect(() => {
    const id = focusWanted.current;
    if (id === null) return;
    const el = ref.current?.querySelector<HTMLElement>(`article[data-message-id="${id}"]`);
    if (el) {
      focusWanted.current = null;
      el.focus({ preventScroll: true });
    }
  });

  const items = virt.getVirtualItems();
  const rangeKey = items.length ? `${items[0]!.key}:${items[items.length - 1]!.key}` : '';

  // Read marking: a message counts as read once half of it is on screen while the page is visible.
  useEffect(() => {
    const el = ref.current;
    if (!el) return;
    const io = new IntersectionObserver(
      (entries) => {
        if (document.visibilityState !== 'visible') return;
        const ids = entries.filter((e) => e.isIntersecting).map((e) => Number((e.target as HTMLElement).dataset.messageId));
        if (ids.length) markRead(ids);
      },
      { root: el, threshold: 0.5 },
    );
    for (const node of el.querySelectorAll<HTMLElement>('article.unread')) io.observe(node);
    return () => io.disconnect();
  }, [rangeKey, unreadMap]);

  const onScroll = () => {
    const el = ref.current!;
    stick.current = el.scrollHeight - el.scrollTop - el.clientHeight < 60;
    if (el.scrollTop < 300) void loadMore('older');
    if (el.scrollHeight - el.scrollTop - el.clientHeight < 300) void loadMore('newer');
  };

  // The header of the group at the top of the viewport stays pinned there, unless that group's
  // own header (or the start marker) is what shows at the top.
  const offset = virt.scrollOffset ?? 0;
  const top = rows.length ? virt.getVirtualItemForOffset(offset) : undefined;
  const topRow = top ? rows[top.index] : undefined;
  const pinnedHead = top && topRow && topRow.kind !== 'start' && !(topRow.kind === 'head' && top.start >= offset - 1) ? rows[headOf[top.index]!] : undefined;
  // The next group's header coming up pushes the pinned one out, instead of sliding under it.
  const nextHead = pinnedHead && top ? items.find((it) => it.index > top.index && rows[it.index]!.kind === 'head') : undefined;
  const pinShift = nextHead ? Math.min(0, nextHead.start - offset - pinHeight.current) : 0;
  useLayoutEffect(() => {
    const h = (pinRef.current?.firstElementChild as HTMLElement | null)?.offsetHeight;
    if (h) pinHeight.current = h;
  });

  // A search (for words, or a sender's messages) is a list of results, not one conversation:
  // "No messages here yet" or "the start of this conversation" said something untrue of it.
  const searching = v.kind === 'narrow' && (!!v.search || v.terms.some((t) => t.operator === 'sender'));
  const startText = searching ? 'No older results.' : 'The start of this conversation.';
  return (
    <div class="feed-wrap">
      <div class="feed" ref={ref} onScroll={onScroll} role="region" aria-label="Messages" aria-busy={st.loading}>
        {st.loading && msgs.length === 0 ? <p role="status">Loading…</p> : null}
        <div class="pin" ref={pinRef} style={pinShift ? { transform: `translateY(${pinShift}px)` } : undefined}>
          {pinnedHead?.kind === 'head' ? <RecipientHeader m={pinnedHead.m} pinned /> : null}
        </div>
        {/* Each row placed at the virtualizer's own offset (none in the page's flow), so what is
            drawn and what it computes never differ by a rounding. */}
        <div class="vlist" style={{ height: `${virt.getTotalSize()}px` }}>
          {items.map((it) => {
            const row = rows[it.index]!;
            return (
              <div key={row.key} class="vrow" data-index={it.index} ref={virt.measureElement} style={{ transform: `translateY(${it.start}px)` }}>
                {row.kind === 'start' ? <p class="muted start">{startText}</p> : row.kind === 'head' ? <RecipientHeader m={row.m} /> : row.kind === 'date' ? <DateDivider m={row.m} /> : <MemoMessage m={row.m} cont={row.cont} unreadNow={unreadMap.has(row.m.id)} />}
              </div>
            );
          })}
        </div>
        {!st.loading && msgs.length === 0 ? <p class="empty muted">{st.error || (searching ? 'No messages match this search.' : 'No messages here yet.')}</p> : null}
      </div>
    </div>
  );
}

/**
 * "Jump to first unread", in the bar above the feed (app.tsx): laid over the feed it covered the
 * top message's actions and, on a phone, the start marker. Its own component, so that the feed's
 * changes re-render only it, not the bar.
 */
export function JumpToUnread() {
  const unreadMap = unread.value;
  const firstUnread = feed.value.find((m) => unreadMap.has(m.id));
  if (!firstUnread) return null;
  return (
    <button type="button" class="jump" aria-label="Jump to first unread" onClick={() => feedApi.reveal(firstUnread.id, 'center')}>
      <span class="wide">Jump to first unread</span>
      <span class="narrow">First unread</span>
    </button>
  );
}
