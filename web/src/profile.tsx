// A person's card, opened from a message's sender name (as Zulip's user card): who they are
// (name, email, role, whether they are here now) and the two ways on from there, a direct message
// and the messages they sent. Without it a person's details had no place in the client at all.
import { useLayoutEffect, useRef } from 'preact/hooks';
import { signal } from '@preact/signals';
import { dmHash, encodeHash } from './narrow';
import { me, overlay, presence, users } from './state';

/** The person whose card is open (with overlay 'profile'). */
export const profileId = signal<number | null>(null);

// Zulip's role numbers.
const ROLES: Record<number, string> = { 100: 'Owner', 200: 'Administrator', 300: 'Moderator', 400: 'Member', 600: 'Guest' };

export function openProfile(userId: number): void {
  profileId.value = userId;
  overlay.value = 'profile';
}

export function Profile() {
  const id = profileId.value!;
  const u = users.value.get(id);
  const box = useRef<HTMLDivElement>(null);
  // The focus comes into the card and, when it closes, goes back to the name that opened it.
  const before = useRef(document.activeElement as HTMLElement | null);
  useLayoutEffect(() => {
    box.current?.querySelector<HTMLElement>('a, button')?.focus();
    return () => before.current?.focus?.();
  }, []);
  const close = () => (overlay.value = '');
  const name = u?.full_name ?? 'Unknown person';
  const slug = `${id}-${encodeHash(name.replace(/\s+/g, '-'))}`;
  // Modal: Tab goes round the card's own controls.
  const onKeyDown = (e: KeyboardEvent) => {
    if (e.key !== 'Tab') return;
    const all = [...(box.current?.querySelectorAll<HTMLElement>('a, button') ?? [])];
    const i = all.indexOf(document.activeElement as HTMLElement);
    e.preventDefault();
    e.stopPropagation();
    all[(i + (e.shiftKey ? all.length - 1 : 1)) % all.length]?.focus();
  };
  return (
    <div class="overlay" onClick={(e) => e.target === e.currentTarget && close()}>
      <div class="dialog profile" role="dialog" aria-modal="true" aria-labelledby="profile-name" ref={box} onKeyDown={onKeyDown}>
        <h2 id="profile-name">{name}</h2>
        {u ? (
          <dl>
            <dt>Email</dt>
            <dd>{u.email}</dd>
            <dt>Role</dt>
            <dd>{u.is_bot ? 'Bot' : ROLES[u.role] ?? 'Member'}</dd>
            <dt>Status</dt>
            <dd>{!u.is_active ? 'Deactivated' : presence.value.get(id)?.active || id === me.value.user_id ? 'Active now' : 'Not active now'}</dd>
          </dl>
        ) : null}
        <p class="profile-actions">
          {id !== me.value.user_id && u?.is_active ? (
            <a href={dmHash([id], [name])} onClick={close}>
              Send direct message
            </a>
          ) : null}
          <a href={`#narrow/sender/${slug}`} onClick={close}>
            View messages sent
          </a>
          <button type="button" onClick={close}>
            Close
          </button>
        </p>
      </div>
    </div>
  );
}
