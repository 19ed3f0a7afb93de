// An unread count beside a link of the sidebar or the inbox (nothing when there is none).
// A faded count is one not part of the totals, as a muted channel's topic (Zulip's muted opacity).
export function UnreadCount({ n, label, faded }: { n: number | undefined; label?: string; faded?: boolean }) {
  if (!n) return null;
  return (
    <span class={faded ? 'count faded' : 'count'} aria-label={`${n} unread${label ? ` ${label}` : ''}`}>
      {n}
    </span>
  );
}
