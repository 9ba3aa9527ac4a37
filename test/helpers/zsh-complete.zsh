# Prints what zsh's own completion system offers for a command line, one match a line:
#   zsh -f zsh-complete.zsh FPATH_DIR 'cardctl cards ' ERRFILE
# It starts an interactive zsh on a pseudo-terminal (zsh/zpty), loads compinit with FPATH_DIR
# first in $fpath (where `cardctl completion zsh > "${fpath[1]}/_cardctl"` puts the script),
# types the line and presses Tab. Each match is caught where it is added (compadd), after zsh's
# own matching against the word under the cursor. The inner shell's stderr goes to ERRFILE,
# which is printed on stderr at the end. Exit 4 when the completion never finished.
zmodload zsh/zpty || { print -u2 'zsh-complete: the zsh/zpty module is missing'; exit 3 }
local dir=$1 typed=$2 errfile=$3 setup=${0:A:h}/zsh-complete-setup.zsh line done=0
zpty z zsh -f -i
zpty -w z "exec 2>>${(q)errfile}; fpath=(${(q)dir} \$fpath); source ${(q)setup}"
while zpty -r z line; do [[ $line == '<<<READY>>>'* ]] && break; done
zpty -w -n z "$typed"$'\t'
while zpty -r z line; do
  line=${line//$'\r'/}; line=${line%$'\n'}
  [[ $line == *'<<<END>>>'* ]] && { done=1; break }
  [[ $line == '<<<M>>>'* ]] && print -r -- "${line#<<<M>>>}"
done
zpty -d z
[[ -s $errfile ]] && cat -- "$errfile" >&2
(( done )) || { print -u2 "zsh-complete: no completion came back for: $typed"; exit 4 }
