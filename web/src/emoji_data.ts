// Emoji names and characters for the picker and the :emoji: typeahead. Loaded on first use: the
// list (from the server's own emoji table, see scripts/build_web.mjs) stays out of the first view.
import data from 'confab:emoji';

export interface EmojiEntry {
  name: string;
  code: string;
  aliases: string[];
}

function char(code: string): string {
  return code
    .split('-')
    .map((h) => String.fromCodePoint(parseInt(h, 16)))
    .join('');
}

export const emoji: EmojiEntry[] = (data as Array<[string, string, string[]]>).map(([name, code, aliases]) => ({ name, code, aliases }));

export function emojiList(): Array<[string, string]> {
  return emoji.map((e) => [e.name, char(e.code)]);
}
export { char as emojiChar };
