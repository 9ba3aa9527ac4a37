// Generates completions/cardctl.{bash,zsh,fish} from oclif.manifest.json, so that the scripts
// always know every command, flag and allowed value. `npm run completions` after changing a
// command; test/completions.test.ts fails when the committed scripts are stale.
//   node scripts/completions.mjs [outDir]
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const outDir = process.argv[2] ?? join(root, 'completions');

// Values of a command's argument that the manifest does not hold: the event types (from the built contract).
const { EVENT_TYPES } = await import(new URL('../dist/contract/resources.js', import.meta.url).href);
const ARG_VALUES = {
  'webhooks trigger': EVENT_TYPES,
  'mock events emit': EVENT_TYPES,
  completion: ['bash', 'zsh', 'fish'],
};
/** Commands whose argument is a profile name: completed, like `-p`, with the names in the store. */
const PROFILE_ARG = ['profiles remove', 'profiles show', 'profiles use'];
/** Profile names, read when completing (`-p`, `--profile`): names only, never a secret. */
const PROFILES_CMD = `cardctl profiles list --json 2>/dev/null | sed -n 's/^ *"name": *"\\([^"]*\\)".*/\\1/p'`;
const PROFILES_FISH = `(cardctl profiles list --json 2>/dev/null | string replace -rf '^ *"name": *"([^"]*)".*' '$1')`;

export function loadCommands(manifestPath = join(root, 'oclif.manifest.json')) {
  const manifest = JSON.parse(readFileSync(manifestPath, 'utf8'));
  return Object.values(manifest.commands)
    .filter((c) => !c.hidden)
    .map((c) => ({
      id: c.id.replaceAll(':', ' '),
      summary: (c.summary ?? c.description ?? '').split('\n')[0],
      flags: Object.values(c.flags)
        .filter((f) => !f.hidden)
        .map((f) => ({
          name: f.name,
          char: f.char,
          type: f.type,
          options: f.options ?? [],
          summary: (f.summary ?? f.description ?? '').split('\n')[0],
        }))
        .sort((a, b) => a.name.localeCompare(b.name)),
      args: [...(ARG_VALUES[c.id.replaceAll(':', ' ')] ?? [])],
    }))
    .sort((a, b) => a.id.localeCompare(b.id));
}

/** Every command id and every topic prefix ("profiles", "mock keys"), with the words that may follow it. */
function tree(commands) {
  const next = new Map([['', new Set()]]);
  for (const c of commands) {
    const words = c.id.split(' ');
    for (let i = 0; i < words.length; i++) {
      const prefix = words.slice(0, i).join(' ');
      if (!next.has(prefix)) next.set(prefix, new Set());
      next.get(prefix).add(words[i]);
    }
  }
  return [...next.entries()].map(([k, v]) => [k, [...v].sort()]).sort((a, b) => a[0].localeCompare(b[0]));
}

const q = (s) => `'${String(s).replaceAll("'", "'\\''")}'`;
const HEADER =
  '# cardctl shell completion. Generated from oclif.manifest.json by scripts/completions.mjs; do not edit.\n';

export function bash(commands) {
  const lines = [HEADER, '_cardctl_subcommands() {', '  case "$1" in'];
  for (const [prefix, words] of tree(commands)) lines.push(`    ${q(prefix)}) echo ${q(words.join(' '))} ;;`);
  lines.push('  esac', '}', '_cardctl_flags() {', '  case "$1" in');
  for (const c of commands) lines.push(`    ${q(c.id)}) echo ${q(c.flags.map((f) => `--${f.name}`).join(' '))} ;;`);
  lines.push('  esac', '}', '_cardctl_flag_values() {', '  case "$1" in');
  for (const c of commands)
    for (const f of c.flags)
      if (f.options.length) lines.push(`    ${q(`${c.id} --${f.name}`)}) echo ${q(f.options.join(' '))} ;;`);
  lines.push('  esac', '}', '_cardctl_args() {', '  case "$1" in');
  for (const c of commands) if (c.args.length) lines.push(`    ${q(c.id)}) echo ${q(c.args.join(' '))} ;;`);
  lines.push('  esac', '}', `_cardctl_profiles() { ${PROFILES_CMD}; }`);
  lines.push(`_cardctl_profile_arg() { case "$1" in ${PROFILE_ARG.map(q).join('|')}) return 0 ;; esac; return 1; }`);
  lines.push(
    '_cardctl() {',
    '  local cur prev cmd="" w i',
    '  cur="${COMP_WORDS[COMP_CWORD]}"',
    '  prev="${COMP_WORDS[COMP_CWORD-1]}"',
    '  # The command is the longest run of leading words that names a topic or command.',
    '  for ((i = 1; i < COMP_CWORD; i++)); do',
    '    w="${COMP_WORDS[i]}"',
    '    [[ "$w" == -* ]] && break',
    '    if [[ " $(_cardctl_subcommands "$cmd") " == *" $w "* ]]; then cmd="${cmd:+$cmd }$w"; else break; fi',
    '  done',
    '  local values; values="$(_cardctl_flag_values "$cmd $prev")"',
    '  if [[ -n "$values" ]]; then COMPREPLY=($(compgen -W "$values" -- "$cur")); return 0; fi',
    '  if [[ "$prev" == "-p" || "$prev" == "--profile" ]] && [[ " $(_cardctl_flags "$cmd") " == *" --profile "* ]]; then COMPREPLY=($(compgen -W "$(_cardctl_profiles)" -- "$cur")); return 0; fi',
    '  if [[ "$cur" == -* ]]; then COMPREPLY=($(compgen -W "$(_cardctl_flags "$cmd") --help" -- "$cur")); return 0; fi',
    '  if _cardctl_profile_arg "$cmd"; then COMPREPLY=($(compgen -W "$(_cardctl_profiles)" -- "$cur")); return 0; fi',
    '  values="$(_cardctl_args "$cmd")"',
    '  if [[ -n "$values" ]]; then COMPREPLY=($(compgen -W "$values" -- "$cur")); return 0; fi',
    '  COMPREPLY=($(compgen -W "$(_cardctl_subcommands "$cmd")" -- "$cur"))',
    '}',
    'complete -o default -F _cardctl cardctl',
    '',
  );
  return lines.join('\n');
}

export function zsh(commands) {
  const lines = ['#compdef cardctl', HEADER, '_cardctl_subcommands() {', '  case "$1" in'];
  for (const [prefix, words] of tree(commands)) lines.push(`    ${q(prefix)}) print -r -- ${q(words.join(' '))} ;;`);
  lines.push('  esac', '}', '_cardctl_flags() {', '  case "$1" in');
  for (const c of commands)
    lines.push(`    ${q(c.id)}) print -r -- ${q(c.flags.map((f) => `--${f.name}`).join(' '))} ;;`);
  lines.push('  esac', '}', '_cardctl_flag_values() {', '  case "$1" in');
  for (const c of commands)
    for (const f of c.flags)
      if (f.options.length) lines.push(`    ${q(`${c.id} --${f.name}`)}) print -r -- ${q(f.options.join(' '))} ;;`);
  lines.push('  esac', '}', '_cardctl_args() {', '  case "$1" in');
  for (const c of commands) if (c.args.length) lines.push(`    ${q(c.id)}) print -r -- ${q(c.args.join(' '))} ;;`);
  lines.push('  esac', '}', `_cardctl_profiles() { ${PROFILES_CMD}; }`);
  lines.push(`_cardctl_profile_arg() { case "$1" in ${PROFILE_ARG.map(q).join('|')}) return 0 ;; esac; return 1; }`);
  lines.push(
    '_cardctl() {',
    '  local cmd="" w i values',
    '  for ((i = 2; i < CURRENT; i++)); do',
    '    w="${words[i]}"',
    '    [[ "$w" == -* ]] && break',
    '    if [[ " $(_cardctl_subcommands "$cmd") " == *" $w "* ]]; then cmd="${cmd:+$cmd }$w"; else break; fi',
    '  done',
    '  values="$(_cardctl_flag_values "$cmd ${words[CURRENT-1]}")"',
    '  if [[ -n "$values" ]]; then compadd -- ${=values}; return; fi',
    '  if [[ "${words[CURRENT-1]}" == (-p|--profile) && " $(_cardctl_flags "$cmd") " == *" --profile "* ]]; then compadd -- ${(f)"$(_cardctl_profiles)"}; return; fi',
    '  if [[ "${words[CURRENT]}" == -* ]]; then compadd -- ${=$(_cardctl_flags "$cmd")} --help; return; fi',
    '  if _cardctl_profile_arg "$cmd"; then compadd -- ${(f)"$(_cardctl_profiles)"}; return; fi',
    '  values="$(_cardctl_args "$cmd")"',
    '  if [[ -n "$values" ]]; then compadd -- ${=values}; return; fi',
    "  # Files only where no word of ours fits (a flag's value such as --batch FILE), like bash's -o default.",
    '  compadd -- ${=$(_cardctl_subcommands "$cmd")} || _files',
    '}',
    '# Autoloaded from fpath, this file is the body of _cardctl: complete now. Sourced: register.',
    '# (sourced from a ~/.zshrc that never ran compinit: run it, so the one install line always works)',
    'if [[ "${funcstack[1]}" == _cardctl ]]; then _cardctl "$@"; else (( $+functions[compdef] )) || { autoload -Uz compinit && compinit; }; compdef _cardctl cardctl; fi',
    '',
  );
  return lines.join('\n');
}

export function fish(commands) {
  const ids = tree(commands).flatMap(([prefix, words]) => words.map((w) => (prefix ? `${prefix} ${w}` : w)));
  const lines = [
    HEADER,
    `set -g __cardctl_commands ${ids.map(q).join(' ')}`,
    'function __cardctl_command --description "the cardctl command typed so far: the longest run of leading words that names a topic or command"',
    '  set -l cmd',
    '  for w in (commandline -opc)[2..-1]',
    '    contains -- (string join -- " " $cmd $w) $__cardctl_commands; or break',
    '    set cmd $cmd $w',
    '  end',
    '  string join -- " " $cmd',
    'end',
    'function __cardctl_is --description "true when the command line so far names exactly this cardctl command"',
    '  set -l cmd (__cardctl_command)',
    '  test "$cmd" = "$argv"',
    'end',
    'complete -c cardctl -f',
  ];
  for (const [prefix, words] of tree(commands)) {
    for (const w of words) {
      const full = prefix ? `${prefix} ${w}` : w;
      const cmd = commands.find((c) => c.id === full);
      const desc = cmd ? cmd.summary : `${full} commands`;
      lines.push(`complete -c cardctl -n ${q(`__cardctl_is ${prefix}`.trim())} -a ${q(w)} -d ${q(desc)}`);
    }
  }
  for (const c of commands) {
    for (const f of c.flags) {
      let line = `complete -c cardctl -n ${q(`__cardctl_is ${c.id}`)} -l ${f.name}`;
      if (f.char) line += ` -s ${f.char}`;
      // -x: a value from our list only; -r: any value, files offered (--batch FILE, --junit FILE).
      if (f.options.length) line += ` -x -a ${q(f.options.join(' '))}`;
      else if (f.name === 'profile') line += ` -x -a ${q(PROFILES_FISH)}`;
      else if (f.type === 'option') line += ' -r';
      if (f.summary) line += ` -d ${q(f.summary)}`;
      lines.push(line);
    }
  }
  for (const c of commands)
    if (c.args.length) lines.push(`complete -c cardctl -n ${q(`__cardctl_is ${c.id}`)} -a ${q(c.args.join(' '))}`);
  for (const id of PROFILE_ARG) lines.push(`complete -c cardctl -n ${q(`__cardctl_is ${id}`)} -a ${q(PROFILES_FISH)}`);
  lines.push('');
  return lines.join('\n');
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const commands = loadCommands();
  mkdirSync(outDir, { recursive: true });
  writeFileSync(join(outDir, 'cardctl.bash'), bash(commands));
  writeFileSync(join(outDir, 'cardctl.zsh'), zsh(commands));
  writeFileSync(join(outDir, 'cardctl.fish'), fish(commands));
  console.error(`wrote ${outDir}/cardctl.{bash,zsh,fish} for ${commands.length} commands`);
}
