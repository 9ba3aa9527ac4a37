# cardctl shell completion. Generated from oclif.manifest.json by scripts/completions.mjs; do not edit.

_cardctl_subcommands() {
  case "$1" in
    '') echo 'cards completion customers demo deposit-addresses deposits doctor mock ops profiles request sign smoke webhooks' ;;
    'cards') echo 'freeze get issue recharge terminate transactions unfreeze' ;;
    'customers') echo 'create get kyc list update' ;;
    'deposit-addresses') echo 'create list' ;;
    'deposits') echo 'list' ;;
    'mock') echo 'clock console deposits events faults keys kyc merchants networks products provision requests reset snapshot start state transactions wallets webhook-deliveries webhook-endpoints withdrawals' ;;
    'mock clock') echo 'advance' ;;
    'mock deposits') echo 'add' ;;
    'mock events') echo 'emit' ;;
    'mock faults') echo 'add clear' ;;
    'mock keys') echo 'create revoke roll rotate' ;;
    'mock merchants') echo 'create' ;;
    'mock networks') echo 'set' ;;
    'mock products') echo 'set' ;;
    'mock requests') echo 'show' ;;
    'mock snapshot') echo 'list restore save' ;;
    'mock transactions') echo 'add' ;;
    'mock webhook-endpoints') echo 'add enable remove' ;;
    'mock withdrawals') echo 'add' ;;
    'ops') echo 'compact list replay resolve show verify' ;;
    'profiles') echo 'add list remove show use' ;;
    'sign') echo 'diagnose' ;;
    'webhooks') echo 'listen sign test trigger verify' ;;
  esac
}
_cardctl_flags() {
  case "$1" in
    'cards freeze') echo '--ca-file --jq --json --no-input --profile --retries --timeout --verbose' ;;
    'cards get') echo '--ca-file --jq --json --no-input --profile --retries --timeout --verbose' ;;
    'cards issue') echo '--allow-duplicates --allow-repeat --amount --batch --ca-file --concurrency --customer --idempotency-key --idempotency-prefix --jq --json --no-input --product --profile --retries --timeout --verbose --wait --wait-timeout --yes' ;;
    'cards recharge') echo '--allow-duplicates --allow-repeat --amount --batch --ca-file --concurrency --idempotency-key --idempotency-prefix --jq --json --no-input --profile --retries --timeout --verbose --yes' ;;
    'cards terminate') echo '--ca-file --idempotency-key --jq --json --no-input --profile --reason --retries --timeout --verbose --yes' ;;
    'cards transactions') echo '--all --ca-file --columns --cursor --jq --json --ndjson --no-input --output --per-page --profile --raw-cells --retries --timeout --verbose' ;;
    'cards unfreeze') echo '--ca-file --jq --json --no-input --profile --retries --timeout --verbose' ;;
    'completion') echo '--jq --json --no-input' ;;
    'customers create') echo '--account-purpose --annual-salary --business-name --ca-file --city --country --customer-type --date-of-birth --dial-code --email --employment-status --expected-monthly-volume --first-name --from --id-front-image --id-number --id-type --jq --json --last-name --line1 --no-input --occupation --phone-number --place-of-birth --postal-code --profile --registration-number --retries --state --terms-of-service-accepted --timeout --verbose' ;;
    'customers get') echo '--ca-file --jq --json --no-input --profile --retries --timeout --verbose' ;;
    'customers kyc') echo '--ca-file --jq --json --no-input --profile --retries --timeout --verbose' ;;
    'customers list') echo '--all --ca-file --columns --cursor --jq --json --ndjson --no-input --output --per-page --profile --raw-cells --retries --timeout --verbose' ;;
    'customers update') echo '--account-purpose --annual-salary --business-name --ca-file --city --country --customer-type --date-of-birth --dial-code --email --employment-status --expected-monthly-volume --first-name --from --id-front-image --id-number --id-type --jq --json --last-name --line1 --no-input --occupation --phone-number --place-of-birth --postal-code --profile --registration-number --retries --state --status --terms-of-service-accepted --timeout --verbose' ;;
    'demo') echo '--jq --json --keep --no-input --seed' ;;
    'deposit-addresses create') echo '--ca-file --jq --json --network --no-input --profile --retries --timeout --verbose' ;;
    'deposit-addresses list') echo '--ca-file --jq --json --no-input --profile --retries --timeout --verbose' ;;
    'deposits list') echo '--all --ca-file --columns --cursor --jq --json --ndjson --no-input --output --per-page --profile --raw-cells --retries --timeout --verbose' ;;
    'doctor') echo '--ca-file --jq --json --no-input --profile --timeout --verbose' ;;
    'mock clock') echo '--control-url --jq --json --no-input --profile' ;;
    'mock clock advance') echo '--control-url --jq --json --no-input --profile' ;;
    'mock console') echo '--control-url --jq --json --no-input --profile' ;;
    'mock deposits add') echo '--asset-amount --control-url --jq --json --merchant --network --no-input --profile --status' ;;
    'mock events') echo '--control-url --jq --json --merchant --no-input --profile' ;;
    'mock events emit') echo '--control-url --data --jq --json --merchant --mode --no-input --profile' ;;
    'mock faults') echo '--control-url --jq --json --no-input --profile' ;;
    'mock faults add') echo '--control-url --count --jq --json --kind --merchant --ms --no-input --operation --profile' ;;
    'mock faults clear') echo '--control-url --jq --json --no-input --profile' ;;
    'mock keys create') echo '--control-url --expires-in --ip --jq --json --merchant --mode --no-input --profile --scope' ;;
    'mock keys revoke') echo '--control-url --jq --json --no-input --profile' ;;
    'mock keys roll') echo '--control-url --jq --json --no-input --profile' ;;
    'mock keys rotate') echo '--control-url --jq --json --no-input --profile' ;;
    'mock kyc') echo '--control-url --jq --json --no-input --profile --reason --verdict' ;;
    'mock merchants create') echo '--control-url --jq --json --no-input --profile' ;;
    'mock networks') echo '--control-url --jq --json --no-input --profile' ;;
    'mock networks set') echo '--control-url --jq --json --no-input --profile' ;;
    'mock products') echo '--control-url --jq --json --no-input --profile' ;;
    'mock products set') echo '--available --control-url --default --enabled --jq --json --no-input --profile' ;;
    'mock provision') echo '--control-url --jq --json --no-input --outcome --profile' ;;
    'mock requests') echo '--control-url --failed --follow --jq --json --key --limit --ndjson --no-input --path --profile --status' ;;
    'mock requests show') echo '--control-url --jq --json --no-input --profile' ;;
    'mock reset') echo '--control-url --jq --json --no-input --profile' ;;
    'mock snapshot list') echo '--control-url --jq --json --no-input --profile' ;;
    'mock snapshot restore') echo '--control-url --jq --json --no-input --profile' ;;
    'mock snapshot save') echo '--control-url --jq --json --no-input --profile' ;;
    'mock start') echo '--console --host --jq --json --log --no-input --port --rate-limit --recover --request-log --save-profiles --seed --state --webhook' ;;
    'mock state') echo '--control-url --jq --json --no-input --profile' ;;
    'mock transactions add') echo '--amount --control-url --currency --jq --json --no-input --occurred-at --profile --status --type' ;;
    'mock wallets') echo '--control-url --jq --json --no-input --profile' ;;
    'mock webhook-deliveries') echo '--control-url --endpoint --event --jq --json --merchant --no-input --profile --state' ;;
    'mock webhook-endpoints') echo '--control-url --jq --json --no-input --profile' ;;
    'mock webhook-endpoints add') echo '--control-url --jq --json --merchant --no-input --profile' ;;
    'mock webhook-endpoints enable') echo '--control-url --jq --json --no-input --profile' ;;
    'mock webhook-endpoints remove') echo '--control-url --jq --json --no-input --profile' ;;
    'mock withdrawals add') echo '--amount --control-url --fee --jq --json --merchant --no-input --outcome --profile' ;;
    'ops compact') echo '--jq --json --no-input --older-than' ;;
    'ops list') echo '--all --card --jq --json --key --limit --ndjson --no-input --since --unresolved --until' ;;
    'ops replay') echo '--ca-file --include --jq --json --no-input --profile --retries --timeout --verbose --yes' ;;
    'ops resolve') echo '--jq --json --no-input --note --outcome' ;;
    'ops show') echo '--jq --json --no-input' ;;
    'ops verify') echo '--discard-unreadable --jq --json --no-input' ;;
    'profiles add') echo '--base-url --ca-file --default --force --jq --json --key-id --mode --no-input --secret-command --secret-command-timeout --secret-stdin --timeout --webhook-secret-command --webhook-secret-stdin' ;;
    'profiles list') echo '--jq --json --no-input' ;;
    'profiles remove') echo '--jq --json --no-input' ;;
    'profiles show') echo '--jq --json --no-input' ;;
    'profiles use') echo '--jq --json --no-input' ;;
    'request') echo '--ca-file --data --idempotency-key --include --jq --json --no-input --profile --query --retries --timeout --verbose --yes' ;;
    'sign') echo '--data --idempotency-key --jq --json --key-id --method --no-input --nonce --path --profile --query --timestamp' ;;
    'sign diagnose') echo '--jq --json --no-input --now --profile --request --show-valid-signature --try-secret-commands' ;;
    'smoke') echo '--amount --jq --json --junit --mock --no-input --profile --timeout' ;;
    'webhooks listen') echo '--control-url --forward-to --host --jq --json --max-events --mock --no-input --port --profile --tolerance' ;;
    'webhooks sign') echo '--jq --json --no-input --payload --profile --timestamp' ;;
    'webhooks test') echo '--jq --json --junit --no-input --profile --timeout' ;;
    'webhooks trigger') echo '--control-url --data --jq --json --merchant --mode --no-input --profile' ;;
    'webhooks verify') echo '--header --jq --json --no-input --now --payload --profile --tolerance' ;;
  esac
}
_cardctl_flag_values() {
  case "$1" in
    'cards terminate --reason') echo 'lost stolen fraud no_longer_needed other' ;;
    'cards transactions --output') echo 'table json ndjson csv tsv' ;;
    'customers create --customer-type') echo 'individual business' ;;
    'customers create --id-type') echo 'bvn nin passport drivers_license national_id vnin voters_card ghana_card' ;;
    'customers list --output') echo 'table json ndjson csv tsv' ;;
    'customers update --customer-type') echo 'individual business' ;;
    'customers update --id-type') echo 'bvn nin passport drivers_license national_id vnin voters_card ghana_card' ;;
    'customers update --status') echo 'active disabled' ;;
    'deposits list --output') echo 'table json ndjson csv tsv' ;;
    'mock deposits add --status') echo 'pending credited flagged' ;;
    'mock events emit --mode') echo 'test live' ;;
    'mock faults add --kind') echo '503 500 500_after_commit drop slow async_202 issue_failed' ;;
    'mock faults add --operation') echo 'issue recharge terminate any cards.issue cards.get cards.recharge cards.freeze cards.unfreeze cards.terminate cards.transactions customers.create customers.list customers.get customers.update customers.kyc depositAddresses.create depositAddresses.list deposits.list' ;;
    'mock keys create --mode') echo 'test live' ;;
    'mock kyc --verdict') echo 'approved rejected' ;;
    'mock provision --outcome') echo 'active failed' ;;
    'mock transactions add --status') echo 'pending completed declined reversed' ;;
    'mock transactions add --type') echo 'authorization capture refund reversal decline' ;;
    'mock webhook-deliveries --state') echo 'pending succeeded dead' ;;
    'mock withdrawals add --outcome') echo 'completed rejected failed cancelled' ;;
    'ops resolve --outcome') echo 'succeeded failed' ;;
    'profiles add --mode') echo 'test live' ;;
    'webhooks trigger --mode') echo 'test live' ;;
  esac
}
_cardctl_args() {
  case "$1" in
    'completion') echo 'bash zsh fish' ;;
    'mock events emit') echo 'customer.kyc.pending customer.kyc.approved customer.kyc.rejected card.issued card.terminated deposit.credited withdrawal.requested withdrawal.approved withdrawal.completed withdrawal.rejected withdrawal.failed withdrawal.cancelled' ;;
    'webhooks trigger') echo 'customer.kyc.pending customer.kyc.approved customer.kyc.rejected card.issued card.terminated deposit.credited withdrawal.requested withdrawal.approved withdrawal.completed withdrawal.rejected withdrawal.failed withdrawal.cancelled' ;;
  esac
}
_cardctl_profiles() { cardctl profiles list --json 2>/dev/null | sed -n 's/^ *"name": *"\([^"]*\)".*/\1/p'; }
_cardctl_profile_arg() { case "$1" in 'profiles remove'|'profiles show'|'profiles use') return 0 ;; esac; return 1; }
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
  if [[ "$prev" == "-p" || "$prev" == "--profile" ]] && [[ " $(_cardctl_flags "$cmd") " == *" --profile "* ]]; then COMPREPLY=($(compgen -W "$(_cardctl_profiles)" -- "$cur")); return 0; fi
  if [[ "$cur" == -* ]]; then COMPREPLY=($(compgen -W "$(_cardctl_flags "$cmd") --help" -- "$cur")); return 0; fi
  if _cardctl_profile_arg "$cmd"; then COMPREPLY=($(compgen -W "$(_cardctl_profiles)" -- "$cur")); return 0; fi
  values="$(_cardctl_args "$cmd")"
  if [[ -n "$values" ]]; then COMPREPLY=($(compgen -W "$values" -- "$cur")); return 0; fi
  COMPREPLY=($(compgen -W "$(_cardctl_subcommands "$cmd")" -- "$cur"))
}
complete -o default -F _cardctl cardctl
