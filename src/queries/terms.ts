// A narrow's terms: as a client sends them (RawTerm), and resolved against the organization (Term).
import type { Stream } from '../store/channels.js';
import type { HasOperand, IsOperand } from '../store/message_window.js';

export type { IsOperand } from '../store/message_window.js';

export interface RawTerm {
  operator: string;
  operand: unknown;
  negated: boolean;
}

export type Term =
  | { kind: 'channel'; stream: Stream; negated: boolean }
  | { kind: 'topic'; topic: string; negated: boolean }
  | { kind: 'dm'; userIds: number[]; negated: boolean }
  | { kind: 'dm_including'; userId: number; groupsOnly: boolean; negated: boolean }
  | { kind: 'sender'; userId: number; negated: boolean }
  | { kind: 'is'; what: IsOperand; negated: boolean }
  | { kind: 'has'; what: HasOperand; negated: boolean }
  | { kind: 'in_home'; negated: boolean }
  | { kind: 'id'; id: number; negated: boolean }
  | { kind: 'channels_public'; negated: boolean }
  | { kind: 'search'; text: string; negated: boolean }
  | { kind: 'empty' };
