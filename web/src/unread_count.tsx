// An unread count beside a link of the sidebar or the inbox (nothing when there is none).
export function UnreadCount({ n, label }: { n: number | undefined; label?: string }) {
  if (!n) return null;
  return (
    <span class="count" aria-label={`${n} unread${label ? ` ${label}` : ''}`}>
      {n}
    </span>
  );
}
