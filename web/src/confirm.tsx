// Asking before an action that cannot simply be taken back (deleting a message,
// deactivating a person, archiving a channel), in the page: the browser's own
// confirm() box is one an automated browser dismisses unseen (Playwright's default), so the action
// seemed to do nothing at all.
import { useId, useLayoutEffect, useRef } from 'preact/hooks';

/** The question as an alertdialog: a button named for the action, and Cancel; Esc cancels. The
 * focus goes to the action's button when it appears; the caller puts it back on Cancel. The button
 * is styled as dangerous unless `primary` (an ordinary action, as Zulip styles "Mark all as read"). */
export function Confirm({ question, action, primary, onConfirm, onCancel }: { question: string; action: string; primary?: boolean; onConfirm: () => void; onCancel: () => void }) {
  const id = useId();
  const yes = useRef<HTMLButtonElement>(null);
  useLayoutEffect(() => yes.current?.focus(), []);
  return (
    <div class="confirm" role="alertdialog" aria-labelledby={id} onKeyDown={(e) => e.key === 'Escape' && (e.stopPropagation(), onCancel())}>
      <span id={id}>{question}</span>
      <button type="button" class={primary ? 'primary' : 'danger'} ref={yes} onClick={onConfirm}>
        {action}
      </button>
      <button type="button" onClick={onCancel}>
        Cancel
      </button>
    </div>
  );
}


