// A narrow's terms: as a client sends them (RawTerm), and resolved against the organization (Term).
import type { Stream } from '../store/channels.js';
import type { MessageFilter } from '../store/message_window.js';

export type { IsOperand } from '../store/message_window.js';

export interface RawTerm {
  operator: string;
  operand: unknown;
  negated: boolean;
}

/** The terms that reach the store as they are (the message window's filters of the same kind). */
type FilterTerm = Extract<MessageFilter, { kind: 'topic' | 'dm_including' | 'sender' | 'is' | 'has' | 'in_home' | 'id' | 'channels_public' | 'channels_web_public' }>;

/** A term resolved against the organization; channel, dm and search become filters with ids. */
export type Term =
  | FilterTerm
  /** `subscribed`: the viewer's subscription, read with the channel (the history check needs it too). */
  | { kind: 'channel'; stream: Stream; subscribed: boolean; negated: boolean }
  | { kind: 'dm'; userIds: number[]; negated: boolean }
  | { kind: 'search'; text: string; negated: boolean }
  | { kind: 'empty' };
