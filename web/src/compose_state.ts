// The compose box's state, shared by its parts: where the message goes (a channel and topic, or
// people), what is written, and which field takes the focus next.
import { signal } from '@preact/signals';

export type Mode = 'stream' | 'dm';
export const mode = signal<Mode>('stream');
export const streamId = signal<number | null>(null);
export const topic = signal('');
export const to = signal<number[]>([]);
export const content = signal('');
export const focusTarget = signal<'' | 'topic' | 'message' | 'to'>('');
// The last message sent went where the open view does not show it: where, and a link there.
export const sentElsewhere = signal<{ label: string; href: string } | null>(null);
// What is typed in the To field and not yet picked from its suggestions.
export const toText = signal('');

export function focusSoon(which: 'topic' | 'message' | 'to'): void {
  focusTarget.value = which;
}
