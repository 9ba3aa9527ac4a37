# cardctl shell completion. Generated from oclif.manifest.json by scripts/completions.mjs; do not edit.

function __cardctl_is --description "true when the command line so far names exactly this cardctl command"
  set -l words (commandline -opc)[2..-1]
  set -l cmd
  for w in $words
    string match -q -- "-*" $w; and break
    set cmd $cmd $w
  end
  test "$cmd" = "$argv"
end
complete -c cardctl -f
complete -c cardctl -n '__cardctl_is' -a 'completion' -d 'Print the shell completion script for bash, zsh or fish.'
complete -c cardctl -n '__cardctl_is completion' -l json -d 'print one JSON value on stdout (errors too)'
