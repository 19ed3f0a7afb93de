// Code blocks in Zulip's codehilite markup, with Pygments' language names and Pygments' token
// classes (k, nf, s2, …), which Zulip's clients colour. Tokens come from highlight.js, loaded on
// first use with only the grammars asked for; its scopes are mapped to Pygments' classes, and the
// text between them (names, operators, punctuation) is classed the way Pygments' lexers class it.
import { createRequire } from 'node:module';
import { escapeHtml } from './env.js';

/** Pygments' language name = aliases = the highlight.js grammar ("-": shown, not highlighted). */
const LANGUAGE_SPEC =
  'Python=python py py3 python3 sage=python;Python 2.x=python2 py2=python;JavaScript=javascript js=javascript;' +
  'TypeScript=typescript ts=typescript;Java=java=java;C=c=c;C++=cpp c++=cpp;C#=csharp cs c#=csharp;Go=go golang=go;' +
  'Rust=rust rs=rust;Ruby=ruby rb=ruby;PHP=php=php;CSS+PHP=css+php=php;HTML+PHP=html+php=php;' +
  'JavaScript+PHP=javascript+php js+php=php;XML+PHP=xml+php=php;Bash=bash sh shell zsh ksh=bash;' +
  'Bash Session=console shell-session=shell;JSON=json=json;HTML=html=xml;CSS=css=css;SQL=sql=sql;YAML=yaml yml=yaml;' +
  'XML=xml=xml;Markdown=markdown md=markdown;Diff=diff patch=diff;Kotlin=kotlin kt=kotlin;Swift=swift=swift;' +
  'Haskell=haskell hs=haskell;Scala=scala=scala;Perl=perl pl=perl;Lua=lua=lua;TeX=tex latex=latex;' +
  'Text only=text txt=-;Docker=docker dockerfile=dockerfile;INI=ini cfg=ini;TOML=toml=ini;Elixir=elixir ex exs=elixir;' +
  'Erlang=erlang=erlang;Clojure=clojure clj=clojure;OCaml=ocaml=ocaml;PowerShell=powershell ps1 posh=powershell;' +
  'Objective-C=objective-c objc=objectivec;Dart=dart=dart;GraphQL=graphql=graphql;Makefile=make makefile=makefile';

interface Language {
  name: string;
  grammar: string | null;
}

const LANGUAGES = new Map<string, Language>(
  LANGUAGE_SPEC.split(';').flatMap((entry) => {
    const [name, aliases, grammar] = entry.split('=') as [string, string, string];
    const language = { name, grammar: grammar === '-' ? null : grammar };
    return aliases.split(' ').map((alias) => [alias, language] as const);
  }),
);

/** highlight.js scopes → Pygments token classes. Scopes not listed only group others. */
const SCOPE_CLASSES: Record<string, string> = {
  keyword: 'k',
  built_in: 'nb',
  literal: 'kc',
  type: 'kt',
  number: 'mi',
  string: 's',
  comment: 'c1',
  doctag: 'sd',
  meta: 'cp',
  'title.function': 'nf',
  'title.class': 'nc',
  title: 'nf',
  'variable.language': 'bp',
  variable: 'nv',
  'template-variable': 'nv',
  operator: 'o',
  punctuation: 'p',
  attr: 'na',
  attribute: 'na',
  symbol: 'ss',
  regexp: 'sr',
  subst: 'si',
  tag: 'nt',
  name: 'nt',
  'selector-tag': 'nt',
  'selector-class': 'nc',
  'selector-id': 'nn',
  property: 'py',
  deletion: 'gd',
  addition: 'gi',
  section: 'gh',
  bullet: 'k',
  link: 'nl',
  quote: 'c1',
};

interface Piece {
  cls: string | null;
  text: string;
}

interface HighlightJs {
  registerLanguage(name: string, grammar: unknown): void;
  getLanguage(name: string): unknown;
  highlight(code: string, options: { language: string; ignoreIllegals: boolean }): { value: string };
}

let hljs: HighlightJs | undefined;
const requireHere = createRequire(import.meta.url);

function highlighter(grammar: string): HighlightJs {
  hljs ??= requireHere('highlight.js/lib/core') as HighlightJs;
  if (!hljs.getLanguage(grammar)) hljs.registerLanguage(grammar, requireHere(`highlight.js/lib/languages/${grammar}`));
  return hljs;
}

function decodeEntities(s: string): string {
  return s.replace(/&(lt|gt|quot|#x27|amp);/g, (_, e: string) => ({ lt: '<', gt: '>', quot: '"', '#x27': "'", amp: '&' })[e]!);
}

/** The Pygments class for a highlight.js scope such as "title function_" or "variable language_". */
function classOfScope(scope: string): string | null | undefined {
  const [first, second] = scope.replace(/^hljs-/, '').split(/\s+/);
  const key = second ? `${first}.${second.replace(/_+$/, '')}` : first!;
  if (key in SCOPE_CLASSES) return SCOPE_CLASSES[key]!;
  if (first! in SCOPE_CLASSES) return SCOPE_CLASSES[first!]!;
  return undefined;
}

/**
 * Text outside highlight.js's scopes, classed as Pygments' lexers class it: names, numbers,
 * operators, punctuation (TeX: braces only).
 */
function lexPlain(text: string, grammar: string, out: Piece[]): void {
  if (grammar === 'latex') {
    for (const m of text.matchAll(/[{}]+|[^{}]+/g)) out.push({ cls: m[0][0] === '{' || m[0][0] === '}' ? 'nb' : null, text: m[0] });
    return;
  }
  for (const m of text.matchAll(/\s+|[A-Za-z_][\w]*|\d+(?:\.\d+)?|[-+*/%=<>!&|^~@?]+|[()[\]{},;:.]+|[^]/g)) {
    const t = m[0];
    let cls: string | null = null;
    if (/^\s/.test(t)) cls = null;
    else if (/^[A-Za-z_]/.test(t)) cls = grammar === 'python' && (t === 'self' || t === 'cls') ? 'bp' : grammar === 'php' ? 'nx' : 'n';
    else if (/^\d/.test(t)) cls = t.includes('.') ? 'mf' : 'mi';
    else if (/^[-+*/%=<>!&|^~@?]/.test(t)) cls = 'o';
    else if (/^[()[\]{},;:.]/.test(t)) cls = 'p';
    out.push({ cls, text: t });
  }
}

/** highlight.js's HTML → pieces with Pygments classes. */
function piecesOf(html: string, grammar: string): Piece[] {
  const out: Piece[] = [];
  const scopes: Array<string | null> = [];
  for (const m of html.matchAll(/<span class="([^"]*)">|<\/span>|[^<]+/g)) {
    if (m[1] !== undefined) {
      // Pygments' PHP lexer names a called function like any other name (Name.Other).
      const cls = grammar === 'php' && m[1].includes('invoke') ? 'nx' : classOfScope(m[1]);
      scopes.push(cls === undefined ? (scopes[scopes.length - 1] ?? null) : cls);
    } else if (m[0] === '</span>') {
      scopes.pop();
    } else {
      const text = decodeEntities(m[0]);
      let cls = scopes[scopes.length - 1] ?? null;
      if (cls === null) {
        lexPlain(text, grammar, out);
        continue;
      }
      if (cls === 's') cls = text.startsWith("'") ? 's1' : 's2';
      if (cls === 'mi' && /[.eE]/.test(text) && !/^0x/i.test(text)) cls = 'mf';
      if (cls === 'c1' && text.startsWith('#!') && out.every((p) => !p.text.includes('\n'))) cls = 'ch';
      if (cls === 'c1' && text.startsWith('/*')) cls = 'cm';
      // Zulip lexes PHP with startinline: the code is already inside <?php, so an opening tag is
      // the operator "<?" and the name "php" (closing tags stay Comment.Preproc).
      if (cls === 'cp' && grammar === 'php' && /^<\?(?:php|=)?$/i.test(text)) {
        const operator = text === '<?=' ? text : '<?';
        out.push({ cls: 'o', text: operator });
        if (text.length > operator.length) out.push({ cls: 'nx', text: text.slice(operator.length) });
        continue;
      }
      // A comment's line ends outside it, as in Pygments.
      const trailing = /\n+$/.exec(text)?.[0] ?? '';
      out.push({ cls, text: text.slice(0, text.length - trailing.length) });
      if (trailing) out.push({ cls: null, text: trailing });
    }
  }
  return out;
}

function piecesToHtml(pieces: Piece[], grammar: string): string {
  let html = '';
  for (let i = 0; i < pieces.length; i++) {
    const p = pieces[i]!;
    if (!p.text) continue;
    let cls = p.cls;
    // Pygments' Python lexer marks the space after def/class as whitespace.
    if (cls === null && grammar === 'python' && /^ +$/.test(p.text) && pieces[i - 1]?.cls === 'k' && /^n[fc]$/.test(pieces[i + 1]?.cls ?? '')) cls = 'w';
    let text = p.text;
    // Pygments emits one token for a run of the same punctuation or operator class.
    while (cls !== null && (cls === 'p' || cls === 'o') && pieces[i + 1]?.cls === cls) text += pieces[++i]!.text;
    html += cls === null ? escapeHtml(text) : `<span class="${cls}">${escapeHtml(text)}</span>`;
  }
  return html;
}

/** Highlighted HTML for a grammar, or null when highlight.js fails on the input. */
function highlight(code: string, grammar: string): string | null {
  try {
    return piecesToHtml(piecesOf(highlighter(grammar).highlight(code, { language: grammar, ignoreIllegals: true }).value, grammar), grammar);
  } catch {
    return null;
  }
}

/** A language named on the code's first line (#!python, #!/usr/bin/python, :::python), as Pygments guesses it. */
function shebangLanguage(code: string): Language | undefined {
  const first = /^(?:#!(?:\S*\/)?(?:env +)?|:::)([\w+#.-]+)/.exec(code);
  return first ? LANGUAGES.get(first[1]!.toLowerCase()) : undefined;
}

export function codeBlock(code: string, lang: string): string {
  const known = lang ? LANGUAGES.get(lang.toLowerCase()) : undefined;
  const name = lang ? (known?.name ?? lang) : '';
  const attr = name ? ` data-code-language="${escapeHtml(name)}"` : '';
  // Like Pygments, drop blank lines at either end and end with one newline.
  const body = code.replace(/^\n+|\n+$/g, '') + '\n';
  const language = lang ? known : shebangLanguage(body);
  const highlighted = language?.grammar ? highlight(body, language.grammar) : null;
  return `<div class="codehilite"${attr}><pre><span></span><code>${highlighted ?? escapeHtml(body)}</code></pre></div>\n`;
}
