// The renderer's shared vocabulary: what callers pass in (RenderContext), what they get back
// (Rendered), and the per-render state the Markdown rules read and write (RenderEnv).
import type { CompiledPattern } from '../lib/linkifier_patterns.js';

export interface MentionUser {
  id: number;
  full_name: string;
  is_active: boolean;
}

/** A named user group a message may name (system groups and deactivated ones too). */
export interface MentionGroup {
  id: number;
  /** What @*name* matches (case-insensitively). */
  name: string;
  /** What the mention shows: a system group's display name, else the name. */
  display?: string;
  /** A deactivated group's mention renders silent and mentions nobody, as in Zulip. */
  deactivated?: boolean;
}

export interface LinkifierRule {
  re: CompiledPattern;
  template: string;
}

/** What the renderer may look up: the organization's users and groups (mentions) and linkifiers. */
export interface RenderContext {
  users?: Iterable<MentionUser>;
  groups?: Iterable<MentionGroup>;
  linkifiers?: readonly LinkifierRule[];
  /** The organization's URL: links into it become relative (#narrow/…), as Zulip writes them. */
  realmUrl?: string;
  /** An image proxy (camo) for inline previews of external images: base URL and HMAC key. */
  camo?: { url: string; key: string };
  /** The sender's translate_emoticons setting: :) becomes 🙂. */
  translateEmoticons?: boolean;
  /**
   * Channels the content links to (#**name**) that the sender may see, by the name as typed, and
   * the newest message id of linked topics, keyed "channelId\0lowercase topic".
   */
  channels?: Map<string, LinkableChannel>;
  topicLatest?: Map<string, number>;
  /** The organization's active custom emoji, by name. */
  realmEmoji?: Iterable<{ name: string; source_url: string }>;
  /** Image and video previews (default on; off for channel descriptions, as Zulip renders them). */
  previews?: boolean;
}

export interface LinkableChannel {
  id: number;
  name: string;
}

export type WildcardKind = 'stream' | 'topic' | null;

/** A rendering that mentions nobody: a bot's text whose HTML is written, not parsed. */
export function mentionFree(html: string): Rendered {
  return { html, mentionedUserIds: new Set(), mentionedGroupIds: new Set(), wildcard: null, streamWildcard: false, topicWildcard: false };
}

export interface Rendered {
  html: string;
  /** Users mentioned by name (not silently). */
  mentionedUserIds: Set<number>;
  /** Groups mentioned by name (not silently); their members count as mentioned. */
  mentionedGroupIds: Set<number>;
  /** The strongest wildcard mentioned: a channel wildcard wins over a topic one. */
  wildcard: WildcardKind;
  streamWildcard: boolean;
  topicWildcard: boolean;
}


/** The state of one render, shared by every rule through markdown-it's `env`. */
export interface RenderEnv {
  linkifiers: readonly LinkifierRule[];
  byName: Map<string, MentionUser[]>;
  byId: Map<number, MentionUser>;
  groupsByName: Map<string, MentionGroup>;
  mentioned: Set<number>;
  mentionedGroups: Set<number>;
  streamWildcard: boolean;
  topicWildcard: boolean;
  realmUrl: string | undefined;
  camo: { url: string; key: string } | undefined;
  translateEmoticons: boolean;
  realmEmoji: Map<string, { name: string; source_url: string }>;
  channels: Map<string, LinkableChannel>;
  topicLatest: Map<string, number>;
  previews: boolean;
}

export function escapeHtml(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

export const envOf = (state: { env: unknown }) => state.env as RenderEnv;
