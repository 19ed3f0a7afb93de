// Drafts: a message left unsent is saved through the drafts API, and put back when compose is
// addressed to its conversation again.
import { api } from './api';
import { content, mode, streamId, to, topic } from './compose_state';
import { dmKeyOf, drafts } from './state';

// The draft this compose box was restored from (updated in place, deleted once sent).
let draftId: number | null = null;

export function saveDraft(): void {
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
export function restoreDraft(): void {
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

/** Compose no longer edits a restored draft (it moved to another conversation). */
export function forgetDraft(): void {
  draftId = null;
}

/** The message was sent: the draft it was restored from goes. */
export function deleteSentDraft(): void {
  if (draftId !== null) void api.del(`/drafts/${draftId}`).catch(() => {});
  draftId = null;
}
