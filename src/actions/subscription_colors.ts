// The colors a user's new subscriptions get, as Zulip's pick_colors chooses them.

/** Zulip's palette for new subscriptions (STREAM_ASSIGNMENT_COLORS). */
export const SUBSCRIPTION_COLORS = [
  '#76ce90', '#fae589', '#a6c7e5', '#e79ab5', '#bfd56f', '#f4ae55', '#b0a5fd', '#addfe5', '#f5ce6e', '#c2726a',
  '#94c849', '#bd86e5', '#ee7e4a', '#a6dcbf', '#95a5fd', '#53a063', '#9987e1', '#e4523d', '#c2c2c2', '#4f8de4',
  '#c6a8ad', '#e7cc4d', '#c8bebf', '#a47462',
];

/** The palette color a channel falls back to once a user has used every color. */
export function colorFor(streamId: number): string {
  return SUBSCRIPTION_COLORS[streamId % SUBSCRIPTION_COLORS.length]!;
}

/**
 * Colors for a user's new subscriptions, as Zulip picks them: a requested color if any, else the
 * palette's colors the user does not use yet, in order; when none is left, one chosen by channel id.
 */
export function pickColors(used: ReadonlySet<string>, streamIds: readonly number[], requested: ReadonlyMap<number, string>): Map<number, string> {
  const taken = new Set(used);
  const out = new Map<number, string>();
  const rest: number[] = [];
  for (const id of [...streamIds].sort((a, b) => a - b)) {
    const color = requested.get(id);
    if (color === undefined) rest.push(id);
    else {
      out.set(id, color);
      taken.add(color);
    }
  }
  const available = SUBSCRIPTION_COLORS.filter((c) => !taken.has(c));
  rest.forEach((id, i) => out.set(id, available[i] ?? colorFor(id)));
  return out;
}
