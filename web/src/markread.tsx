// "Mark all as read" on the Inbox: without it the only way to clear unread counts was to scroll
// through every message. Asked first in the page (Confirm), as Zulip asks: it cannot be undone
// in one step. The counts fall with the server's update_message_flags event.
// Also markRead: the messages read as they come into view, sent to the server in one request.
import { useRef, useState } from 'preact/hooks';
import { api } from './api';
import { Confirm } from './confirm';
import { setUnread, showToast, unread } from './state';

export function MarkAllRead() {
  const [asking, setAsking] = useState(false);
  const button = useRef<HTMLButtonElement>(null);
  const done = () => {
    setAsking(false);
    setTimeout(() => button.current?.focus(), 0);
  };
  return (
    <>
      <button type="button" ref={button} onClick={() => setAsking(true)}>
        Mark all as read
      </button>
      {asking ? (
        <Confirm
          question="Mark all messages as read?"
          action="Mark as read"
          primary
          onConfirm={() => {
            setAsking(false);
            api.post('/mark_all_as_read', {}).catch((e: Error) => showToast(e.message));
          }}
          onCancel={done}
        />
      ) : null}
    </>
  );
}

// ---- marking read: ids collected as they come into view, sent in one request ----

const pendingRead = new Set<number>();
let readTimer: ReturnType<typeof setTimeout> | null = null;

export function markRead(ids: number[]): void {
  const fresh = ids.filter((id) => unread.value.has(id));
  if (fresh.length === 0) return;
  setUnread((u) => fresh.forEach((id) => u.delete(id)));
  for (const id of fresh) pendingRead.add(id);
  if (!readTimer) {
    readTimer = setTimeout(() => {
      readTimer = null;
      const batchIds = [...pendingRead];
      pendingRead.clear();
      void api.post('/messages/flags', { messages: batchIds, op: 'add', flag: 'read' }).catch(() => {});
    }, 250);
  }
}
