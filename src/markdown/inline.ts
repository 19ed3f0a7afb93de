// Zulip's inline syntax as markdown-it inline rules: mentions, strikethrough, inline code as
// Zulip delimits it, and underscores that are never emphasis. Every rule scans forward a bounded
// distance from its start, so a line costs time linear in its length.
import type { StateInline } from 'markdown-it';
import { envOf, escapeHtml, type MentionUser } from './env.js';
import { renderTex, texError } from './tex.js';
import { parseGlobalTime } from './times.js';

const STREAM_WILDCARDS = new Set(['all', 'everyone', 'stream', 'channel']);
const TOPIC_WILDCARDS = new Set(['topic']);
/** Longer than any user or group name Zulip allows: a mention scan never goes further. */
const MAX_MENTION_NAME = 200;

/** Zulip recognises a mention only at the start or after whitespace or an opening character. */
function mentionMayStartAt(src: string, pos: number): boolean {
  if (pos === 0) return true;
  const c = src[pos - 1]!;
  return /\s/.test(c) || `'"({[/<`.includes(c);
}

/** The `*`-free name between pos and the next `*` on the line, with the index of that `*`. */
function nameUntilStar(src: string, pos: number, max: number): { name: string; end: number } | null {
  const limit = Math.min(max, pos + MAX_MENTION_NAME);
  for (let i = pos; i < limit; i++) {
    const c = src.charCodeAt(i);
    if (c === 0x2a /* * */) return i > pos ? { name: src.slice(pos, i), end: i } : null;
    if (c === 0x0a) return null;
  }
  return null;
}

export function pushHtml(state: StateInline, html: string): void {
  const token = state.push('html_inline', '', 0);
  token.content = html;
}

/** @**Name**, @**Name|id**, @**all** (and the silent @_ forms); @*group* and @_*group*. */
export function mentionRule(state: StateInline, silent: boolean): boolean {
  const src = state.src;
  const start = state.pos;
  if (src.charCodeAt(start) !== 0x40 /* @ */ || !mentionMayStartAt(src, start)) return false;
  let pos = start + 1;
  const isSilent = src.charCodeAt(pos) === 0x5f; /* _ */
  if (isSilent) pos++;
  if (src.charCodeAt(pos) !== 0x2a) return false;
  const env = envOf(state);
  const prefix = isSilent ? '' : '@';
  const silentClass = isSilent ? ' silent' : '';
  let html: string | null = null;
  let end: number;

  if (src.charCodeAt(pos + 1) === 0x2a) {
    // A user or wildcard mention: **name** with no `*` inside.
    const found = nameUntilStar(src, pos + 2, state.posMax);
    if (!found || found.end + 1 >= state.posMax || src.charCodeAt(found.end + 1) !== 0x2a) return false;
    end = found.end + 2;
    const inner = found.name;
    const bar = inner.lastIndexOf('|');
    const name = bar >= 0 ? inner.slice(0, bar) : inner;
    const idPart = bar >= 0 ? inner.slice(bar + 1) : null;
    if (idPart === null && STREAM_WILDCARDS.has(inner)) {
      html = `<span class="user-mention channel-wildcard-mention${silentClass}" data-user-id="*">${prefix}${inner}</span>`;
      if (!isSilent && !silent) env.streamWildcard = true;
    } else if (idPart === null && TOPIC_WILDCARDS.has(inner)) {
      html = `<span class="topic-mention${silentClass}">${prefix}${inner}</span>`;
      if (!isSilent && !silent) env.topicWildcard = true;
    } else {
      let user: MentionUser | undefined;
      if (idPart !== null && /^\d+$/.test(idPart)) {
        const candidate = env.byId.get(Number(idPart));
        // @**Other Name|id** is not a mention of the user with that id.
        if (candidate && (name === '' || candidate.full_name === name)) user = candidate;
      } else if (idPart === null) {
        const matches = env.byName.get(name.toLowerCase()) ?? [];
        if (matches.length === 1) user = matches[0];
      }
      if (user) {
        html = `<span class="user-mention${silentClass}" data-user-id="${user.id}">${prefix}${escapeHtml(user.full_name)}</span>`;
        if (!isSilent && !silent) env.mentioned.add(user.id);
      }
    }
  } else {
    // A user group mention: *name*.
    const found = nameUntilStar(src, pos + 1, state.posMax);
    if (!found) return false;
    end = found.end + 1;
    const group = env.groupsByName.get(found.name.toLowerCase());
    if (group) {
      // Zulip's UserGroupMentionPattern: a deactivated group's mention is silent.
      const quiet = isSilent || group.deactivated === true;
      html = `<span class="user-group-mention${quiet ? ' silent' : ''}" data-user-group-id="${group.id}">${quiet ? '' : '@'}${escapeHtml(group.display ?? group.name)}</span>`;
      if (!quiet && !silent) env.mentionedGroups.add(group.id);
    }
  }
  if (html === null) return false;
  if (!silent) pushHtml(state, html);
  state.pos = end;
  return true;
}

/** Zulip's strikethrough: ~~text~~ on one line, spaces allowed inside, rendered as <del>. */
export function delRule(state: StateInline, silent: boolean): boolean {
  const src = state.src;
  const start = state.pos;
  const max = state.posMax;
  if (src.charCodeAt(start) !== 0x7e || src.charCodeAt(start + 1) !== 0x7e) return false;
  if (start > 0 && src.charCodeAt(start - 1) === 0x7e) return false;
  let end = start + 2;
  while (end < max) {
    const c = src.charCodeAt(end);
    if (c === 0x7e || c === 0x0a) break;
    end++;
  }
  if (end === start + 2 || end + 1 >= max || src.charCodeAt(end) !== 0x7e || src.charCodeAt(end + 1) !== 0x7e) return false;
  if (src.charCodeAt(end + 2) === 0x7e) return false;
  if (!silent) {
    state.push('del_open', 'del', 1);
    const oldMax = state.posMax;
    state.pos = start + 2;
    state.posMax = end;
    state.md.inline.tokenize(state);
    state.posMax = oldMax;
    state.push('del_close', 'del', -1);
  }
  state.pos = end + 2;
  return true;
}

/** Zulip never treats `_` as emphasis: a run of underscores is plain text. */
export function underscoreRule(state: StateInline, silent: boolean): boolean {
  const src = state.src;
  if (src.charCodeAt(state.pos) !== 0x5f) return false;
  let end = state.pos;
  while (end < state.posMax && src.charCodeAt(end) === 0x5f) end++;
  if (!silent) state.pending += src.slice(state.pos, end);
  state.pos = end;
  return true;
}

/**
 * Inline code as Zulip writes it: a run of n backticks up to the next run of exactly n on the
 * same line, content kept as typed (no space trimming). An opener that finds no closer proves no
 * later run of its length exists on the line, so each length is scanned at most once per line.
 */
export function backticksRule(state: StateInline, silent: boolean): boolean {
  const src = state.src;
  const start = state.pos;
  if (src.charCodeAt(start) !== 0x60) return false;
  const max = state.posMax;
  let pos = start + 1;
  while (pos < max && src.charCodeAt(pos) === 0x60) pos++;
  const marker = src.slice(start, pos);
  let lineEnd = src.indexOf('\n', pos);
  if (lineEnd < 0 || lineEnd > max) lineEnd = max;
  let scan = pos;
  while (scan < lineEnd) {
    const open = src.indexOf('`', scan);
    if (open < 0 || open >= lineEnd) break;
    let close = open + 1;
    while (close < lineEnd && src.charCodeAt(close) === 0x60) close++;
    if (close - open === marker.length && open > pos) {
      if (!silent) {
        const token = state.push('code_inline', 'code', 0);
        token.markup = marker;
        token.content = src.slice(pos, open);
      }
      state.pos = close;
      return true;
    }
    scan = close;
  }
  if (!silent) state.pending += marker;
  state.pos = pos;
  return true;
}

/** $$…$$ on one line: inline TeX, typeset by KaTeX (or shown as an error), no Markdown inside. */
export function texInlineRule(state: StateInline, silent: boolean): boolean {
  const src = state.src;
  const start = state.pos;
  if (src.charCodeAt(start) !== 0x24 || src.charCodeAt(start + 1) !== 0x24) return false;
  // Zulip needs $$ at the start or after a non-word character, and something between the fences.
  if (start > 0 && /[\w$]/.test(src[start - 1]!)) return false;
  let end = start + 2;
  for (; end < state.posMax; end++) {
    const c = src.charCodeAt(end);
    if (c === 0x0a) return false;
    if (c === 0x5c /* \ */) {
      end++;
      continue;
    }
    if (c === 0x24 && src.charCodeAt(end + 1) === 0x24) break;
  }
  if (end >= state.posMax || end === start + 2) return false;
  // A closing run longer than $$ ends with its last two dollars ($$x\$$$ is x\$).
  while (src.charCodeAt(end + 2) === 0x24) end++;
  if (!silent) {
    const tex = src.slice(start + 2, end);
    pushHtml(state, renderTex(tex, false) ?? texError(tex, false));
  }
  state.pos = end + 2;
  return true;
}

/** <time:…>: a global time (see times.ts); an unparseable one stays as typed, Markdown and all. */
export function timeRule(state: StateInline, silent: boolean): boolean {
  const src = state.src;
  const start = state.pos;
  if (src.charCodeAt(start) !== 0x3c || !src.startsWith('<time:', start)) return false;
  const end = src.indexOf('>', start + 6);
  if (end < 0 || end >= state.posMax) return false;
  const text = src.slice(start + 6, end);
  if (text.includes('\n')) return false;
  if (!silent) {
    const datetime = parseGlobalTime(text);
    if (datetime) pushHtml(state, `<time datetime="${datetime}">${escapeHtml(text)}</time>`);
    else state.pending += src.slice(start, end + 1);
  }
  state.pos = end + 1;
  return true;
}
