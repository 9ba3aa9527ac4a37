#compdef cardctl
# cardctl shell completion. Generated from oclif.manifest.json by scripts/completions.mjs; do not edit.

_cardctl_subcommands() {
  case "$1" in
    '') print -r -- 'completion' ;;
  esac
}
_cardctl_flags() {
  case "$1" in
    'completion') print -r -- '--json' ;;
  esac
}
_cardctl_flag_values() {
  case "$1" in
  esac
}
_cardctl() {
  local cmd="" w i values
  for ((i = 2; i < CURRENT; i++)); do
    w="${words[i]}"
    [[ "$w" == -* ]] && break
    if [[ " $(_cardctl_subcommands "$cmd") " == *" $w "* ]]; then cmd="${cmd:+$cmd }$w"; else break; fi
  done
  values="$(_cardctl_flag_values "$cmd ${words[CURRENT-1]}")"
  if [[ -n "$values" ]]; then compadd -- ${=values}; return; fi
  if [[ "${words[CURRENT]}" == -* ]]; then compadd -- ${=$(_cardctl_flags "$cmd")} --help; return; fi
  compadd -- ${=$(_cardctl_subcommands "$cmd")}
  _files
}
compdef _cardctl cardctl
