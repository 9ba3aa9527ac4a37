# Sourced by the interactive zsh that zsh-complete.zsh drives: a bare prompt, compinit, Tab
# bound to complete-word, markers around each completion, and compadd wrapped to print matches.
PROMPT= RPROMPT= PS2=
autoload -U compinit && compinit -u -D
bindkey '^I' complete-word
__zc_begin() { print -r -- '<<<BEGIN>>>' }
__zc_end() { print -r -- '<<<END>>>'; exit }
compprefuncs=(__zc_begin)
comppostfuncs=(__zc_end)
compadd() {
  # Calls that only ask for matches (-O, -A, -D) are compsys internals: pass them on.
  if [[ ${@[1,(i)(-|--)]} == *-(O|A|D)\ * ]]; then builtin compadd "$@"; return; fi
  local -a __zc_hits
  builtin compadd -A __zc_hits "$@"
  (( $#__zc_hits )) || return 1
  print -rl -- '<<<M>>>'${^__zc_hits}
}
print -r -- '<<<READY>>>'
