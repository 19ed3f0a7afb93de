// Escaping text into HTML the way Python's html.escape does (quotes included), for the markup
// Confab writes itself (Notification Bot texts, reminders). The Markdown renderer has its own,
// matching Zulip's Markdown output byte for byte.
export function escapeHtml(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#39;');
}
