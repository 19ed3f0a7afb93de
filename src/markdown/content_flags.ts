// What a rendered message contains, for the has:link, has:image and has:attachment narrows.
// Computed from the HTML whenever a message is sent or its content edited.

export interface ContentFlags {
  has_link: boolean;
  has_image: boolean;
  has_attachment: boolean;
}

const HREF = /<a\b[^>]*?\shref="([^"]*)"/g;

export function contentFlags(html: string): ContentFlags {
  let link = false;
  let attachment = false;
  for (const m of html.matchAll(HREF)) {
    const href = m[1]!;
    // Channel, topic and message links point inside the app; they are not links for has:link.
    if (/^(https?:|mailto:)/i.test(href) || /^(?:https?:\/\/[^/]+)?\/?user_uploads\//i.test(href)) link = true;
    if (/^(?:https?:\/\/[^/]+)?\/?user_uploads\//i.test(href)) attachment = true;
  }
  return { has_link: link, has_image: /class="message_inline_image"/.test(html), has_attachment: attachment };
}
