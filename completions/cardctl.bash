# cardctl shell completion. Generated from oclif.manifest.json by scripts/completions.mjs; do not edit.

_cardctl_subcommands() {
  case "$1" in
    '') echo 'completion' ;;
  esac
}
_cardctl_flags() {
  case "$1" in
    'completion') echo '--json' ;;
  esac
}
_cardctl_flag_values() {
  case "$1" in
  esac
}
_cardctl() {
  local cur prev cmd="" w i
  cur="${COMP_WORDS[COMP_CWORD]}"
  prev="${COMP_WORDS[COMP_CWORD-1]}"
  # The command is the longest run of leading words that names a topic or command.
  for ((i = 1; i < COMP_CWORD; i++)); do
    w="${COMP_WORDS[i]}"
    [[ "$w" == -* ]] && break
    if [[ " $(_cardctl_subcommands "$cmd") " == *" $w "* ]]; then cmd="${cmd:+$cmd }$w"; else break; fi
  done
  local values; values="$(_cardctl_flag_values "$cmd $prev")"
  if [[ -n "$values" ]]; then COMPREPLY=($(compgen -W "$values" -- "$cur")); return 0; fi
  if [[ "$cur" == -* ]]; then COMPREPLY=($(compgen -W "$(_cardctl_flags "$cmd") --help" -- "$cur")); return 0; fi
  COMPREPLY=($(compgen -W "$(_cardctl_subcommands "$cmd")" -- "$cur"))
}
complete -o default -F _cardctl cardctl
