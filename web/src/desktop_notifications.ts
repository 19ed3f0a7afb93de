// Desktop notifications for messages that arrive while the page is hidden.
import type { Term } from './narrow';
import { goTo } from './navigator';
import { allStreams, dmOthers, me, Message, subs, TOPIC_FOLLOWED, topicInHome, topicPolicy, unreadInfoOf, userSettings } from './state';

/**
 * Whether a message that arrived while the page is hidden asks for a desktop notification, as
 * Zulip's message_is_notifiable and should_send_desktop_notification decide. Unless it mentions
 * one or its topic is followed, never a muted topic's message, nor a muted channel's unless its
 * topic is unmuted there. Then: the channel's own desktop_notifications (or
 * enable_stream_desktop_notifications when it has none); for a followed topic,
 * enable_followed_topic_desktop_notifications (default on); for direct messages and mentions,
 * enable_desktop_notifications.
 */
function wantsDesktopNotification(m: Message): boolean {
  const settings = userSettings.value;
  const personal = settings.enable_desktop_notifications !== false;
  if (m.type === 'private') return personal;
  const sub = m.stream_id === undefined ? undefined : subs.value.get(m.stream_id);
  if (!sub) return false;
  const mentioned = unreadInfoOf(m).mentioned;
  const followed = topicPolicy(sub.stream_id, m.subject) === TOPIC_FOLLOWED;
  if (!mentioned && !followed && !topicInHome(sub.stream_id, m.subject)) return false;
  if (sub.desktop_notifications ?? !!settings.enable_stream_desktop_notifications) return true;
  if (followed && settings.enable_followed_topic_desktop_notifications !== false) return true;
  return mentioned && personal;
}

/** The narrow of a message's conversation: its channel and topic, or the other people of a DM. */
function conversationTerms(m: Message): Term[] {
  if (m.type === 'stream') return [{ operator: 'channel', operand: m.stream_id! }, { operator: 'topic', operand: m.subject }];
  return [{ operator: 'dm', operand: dmOthers(m).map((r) => r.id) }];
}

export function notifyDesktop(m: Message): void {
  if (m.sender_id === me.value.user_id || document.visibilityState === 'visible') return;
  if (typeof Notification === 'undefined' || Notification.permission !== 'granted' || !wantsDesktopNotification(m)) return;
  const where = m.type === 'stream' ? `#${allStreams.value.get(m.stream_id!)?.name ?? ''} > ${m.subject}` : 'Direct message';
  const text = new DOMParser().parseFromString(m.content, 'text/html').body.textContent ?? '';
  const n = new Notification(`${m.sender_full_name} (${where})`, { body: text.slice(0, 200), tag: String(m.id) });
  // A click opens the conversation at that message.
  n.onclick = () => {
    window.focus();
    n.close();
    goTo({ kind: 'narrow', terms: conversationTerms(m), near: m.id });
  };
}
