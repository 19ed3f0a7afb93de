// Code blocks in Zulip's codehilite markup, with Pygments' language names.
import { escapeHtml } from './env.js';

/** Pygments' names for common code-block languages, as Zulip reports them in data-code-language. */
const LANGUAGE_SPEC =
  'Python=python py py3 python3 sage;Python 2.x=python2 py2;JavaScript=javascript js;' +
  'TypeScript=typescript ts;Java=java;C=c;C++=cpp c++;C#=csharp cs c#;Go=go golang;Rust=rust rs;' +
  'Ruby=ruby rb;PHP=php;CSS+PHP=css+php;HTML+PHP=html+php;Bash=bash sh shell zsh ksh;' +
  'Bash Session=console shell-session;JSON=json;HTML=html;CSS=css;SQL=sql;YAML=yaml yml;XML=xml;' +
  'Markdown=markdown md;Diff=diff patch;Kotlin=kotlin kt;Swift=swift;Haskell=haskell hs;Scala=scala;' +
  'Perl=perl pl;Lua=lua;TeX=tex latex;Text only=text txt;Docker=docker dockerfile;INI=ini cfg;' +
  'TOML=toml;Elixir=elixir ex exs;Erlang=erlang;Clojure=clojure clj;OCaml=ocaml;' +
  'PowerShell=powershell ps1 posh;Objective-C=objective-c objc;Dart=dart;GraphQL=graphql;' +
  'Makefile=make makefile';
const LANGUAGE_NAMES = new Map(
  LANGUAGE_SPEC.split(';').flatMap((entry) => {
    const [name, aliases] = entry.split('=') as [string, string];
    return aliases.split(' ').map((alias) => [alias, name] as const);
  }),
);

export function codeBlock(code: string, lang: string): string {
  const name = lang ? (LANGUAGE_NAMES.get(lang.toLowerCase()) ?? lang) : '';
  const attr = name ? ` data-code-language="${escapeHtml(name)}"` : '';
  // Like Pygments, drop blank lines at either end and end with one newline.
  const body = code.replace(/^\n+|\n+$/g, '') + '\n';
  return `<div class="codehilite"${attr}><pre><span></span><code>${escapeHtml(body)}</code></pre></div>\n`;
}

