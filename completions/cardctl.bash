# cardctl shell completion. Generated from oclif.manifest.json by scripts/completions.mjs; do not edit.

_cardctl_subcommands() {
  case "$1" in
    '') echo 'cards completion config customers demo deposit-addresses deposits doctor mock ops profiles request sign smoke webhooks' ;;
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
    'ops') echo 'compact copy list replay resolve show verify' ;;
    'profiles') echo 'add list remove show use' ;;
    'sign') echo 'diagnose' ;;
    'webhooks') echo 'listen sign test trigger verify' ;;
  esac
}
_cardctl_flags() {
  case "$1" in
    'cards freeze') echo '--ca-file --dry-run --jq --json --no-input --output --profile --quiet --retries --timeout --verbose' ;;
    'cards get') echo '--ca-file --dry-run --jq --json --no-input --output --profile --quiet --retries --timeout --verbose' ;;
    'cards issue') echo '--allow-duplicates --allow-repeat --amount --batch --ca-file --concurrency --customer --dry-run --idempotency-key --idempotency-prefix --journal --jq --json --no-input --output --product --profile --quiet --retries --timeout --verbose --wait --wait-timeout --yes' ;;
    'cards recharge') echo '--allow-duplicates --allow-repeat --amount --batch --ca-file --concurrency --dry-run --idempotency-key --idempotency-prefix --journal --jq --json --no-input --output --profile --quiet --retries --timeout --verbose --yes' ;;
    'cards terminate') echo '--ca-file --dry-run --idempotency-key --journal --jq --json --no-input --output --profile --quiet --reason --retries --timeout --verbose --yes' ;;
    'cards transactions') echo '--all --ca-file --columns --cursor --dry-run --jq --json --ndjson --no-input --output --per-page --profile --quiet --raw-cells --retries --timeout --verbose' ;;
    'cards unfreeze') echo '--ca-file --dry-run --jq --json --no-input --output --profile --quiet --retries --timeout --verbose' ;;
    'completion') echo '--jq --json --no-input --output --quiet' ;;
    'config') echo '--ca-file --journal --jq --json --no-input --output --profile --quiet --retries --timeout' ;;
    'customers create') echo '--account-purpose --annual-salary --business-name --ca-file --city --country --customer-type --date-of-birth --dial-code --dry-run --email --employment-status --expected-monthly-volume --first-name --from --id-front-image --id-number --id-type --jq --json --last-name --line1 --no-input --occupation --output --phone-number --place-of-birth --postal-code --profile --quiet --registration-number --retries --state --terms-of-service-accepted --timeout --verbose' ;;
    'customers get') echo '--ca-file --dry-run --jq --json --no-input --output --profile --quiet --retries --timeout --verbose' ;;
    'customers kyc') echo '--ca-file --dry-run --jq --json --no-input --output --profile --quiet --retries --timeout --verbose' ;;
    'customers list') echo '--all --ca-file --columns --cursor --dry-run --jq --json --ndjson --no-input --output --per-page --profile --quiet --raw-cells --retries --timeout --verbose' ;;
    'customers update') echo '--account-purpose --annual-salary --business-name --ca-file --city --country --customer-type --date-of-birth --dial-code --dry-run --email --employment-status --expected-monthly-volume --first-name --from --id-front-image --id-number --id-type --jq --json --last-name --line1 --no-input --occupation --output --phone-number --place-of-birth --postal-code --profile --quiet --registration-number --retries --state --status --terms-of-service-accepted --timeout --verbose' ;;
    'demo') echo '--jq --json --keep --no-input --output --quiet --seed' ;;
    'deposit-addresses create') echo '--ca-file --dry-run --jq --json --network --no-input --output --profile --quiet --retries --timeout --verbose' ;;
    'deposit-addresses list') echo '--ca-file --dry-run --jq --json --no-input --output --profile --quiet --retries --timeout --verbose' ;;
    'deposits list') echo '--all --ca-file --columns --cursor --dry-run --jq --json --ndjson --no-input --output --per-page --profile --quiet --raw-cells --retries --timeout --verbose' ;;
    'doctor') echo '--ca-file --journal --jq --json --no-input --output --profile --quiet --timeout --verbose' ;;
    'mock clock') echo '--control-url --jq --json --no-input --output --profile --quiet' ;;
    'mock clock advance') echo '--control-url --jq --json --no-input --output --profile --quiet' ;;
    'mock console') echo '--control-url --jq --json --no-input --output --profile --quiet' ;;
    'mock deposits add') echo '--asset-amount --control-url --jq --json --merchant --network --no-input --output --profile --quiet --status' ;;
    'mock events') echo '--control-url --jq --json --merchant --no-input --output --profile --quiet' ;;
    'mock events emit') echo '--control-url --data --jq --json --merchant --mode --no-input --output --profile --quiet' ;;
    'mock faults') echo '--control-url --jq --json --no-input --output --profile --quiet' ;;
    'mock faults add') echo '--control-url --count --jq --json --kind --merchant --ms --no-input --operation --output --profile --quiet' ;;
    'mock faults clear') echo '--control-url --jq --json --no-input --output --profile --quiet' ;;
    'mock keys create') echo '--control-url --expires-in --ip --jq --json --merchant --mode --no-input --output --profile --quiet --scope' ;;
    'mock keys revoke') echo '--control-url --jq --json --no-input --output --profile --quiet' ;;
    'mock keys roll') echo '--control-url --jq --json --no-input --output --profile --quiet' ;;
    'mock keys rotate') echo '--control-url --jq --json --no-input --output --profile --quiet' ;;
    'mock kyc') echo '--control-url --jq --json --no-input --output --profile --quiet --reason --verdict' ;;
    'mock merchants create') echo '--control-url --jq --json --no-input --output --profile --quiet' ;;
    'mock networks') echo '--control-url --jq --json --no-input --output --profile --quiet' ;;
    'mock networks set') echo '--control-url --jq --json --no-input --output --profile --quiet' ;;
    'mock products') echo '--control-url --jq --json --no-input --output --profile --quiet' ;;
    'mock products set') echo '--available --control-url --default --enabled --jq --json --no-input --output --profile --quiet' ;;
    'mock provision') echo '--control-url --jq --json --no-input --outcome --output --profile --quiet' ;;
    'mock requests') echo '--control-url --failed --follow --jq --json --key --limit --ndjson --no-input --output --path --profile --quiet --status' ;;
    'mock requests show') echo '--control-url --jq --json --no-input --output --profile --quiet' ;;
    'mock reset') echo '--control-url --jq --json --no-input --output --profile --quiet' ;;
    'mock snapshot list') echo '--control-url --jq --json --no-input --output --profile --quiet' ;;
    'mock snapshot restore') echo '--control-url --jq --json --no-input --output --profile --quiet' ;;
    'mock snapshot save') echo '--control-url --jq --json --no-input --output --profile --quiet' ;;
    'mock start') echo '--console --host --jq --json --log --no-input --output --port --quiet --rate-limit --recover --request-log --save-profiles --seed --state --webhook' ;;
    'mock state') echo '--control-url --jq --json --no-input --output --profile --quiet' ;;
    'mock transactions add') echo '--amount --control-url --currency --jq --json --no-input --occurred-at --output --profile --quiet --status --type' ;;
    'mock wallets') echo '--control-url --jq --json --no-input --output --profile --quiet' ;;
    'mock webhook-deliveries') echo '--control-url --endpoint --event --jq --json --merchant --no-input --output --profile --quiet --state' ;;
    'mock webhook-endpoints') echo '--control-url --jq --json --no-input --output --profile --quiet' ;;
    'mock webhook-endpoints add') echo '--control-url --jq --json --merchant --no-input --output --profile --quiet' ;;
    'mock webhook-endpoints enable') echo '--control-url --jq --json --no-input --output --profile --quiet' ;;
    'mock webhook-endpoints remove') echo '--control-url --jq --json --no-input --output --profile --quiet' ;;
    'mock withdrawals add') echo '--amount --control-url --fee --jq --json --merchant --no-input --outcome --output --profile --quiet' ;;
    'ops compact') echo '--journal --jq --json --no-input --older-than --output --quiet' ;;
    'ops copy') echo '--journal --jq --json --no-input --output --quiet --to' ;;
    'ops list') echo '--all --card --journal --jq --json --key --limit --ndjson --no-input --output --quiet --since --unresolved --until' ;;
    'ops replay') echo '--ca-file --dry-run --include --journal --jq --json --no-input --output --profile --quiet --retries --timeout --verbose --yes' ;;
    'ops resolve') echo '--journal --jq --json --no-input --note --outcome --output --quiet' ;;
    'ops show') echo '--journal --jq --json --no-input --output --quiet' ;;
    'ops verify') echo '--discard-unreadable --journal --jq --json --no-input --output --quiet' ;;
    'profiles add') echo '--base-url --ca-file --default --force --jq --json --key-id --mode --no-input --output --quiet --secret-command --secret-command-timeout --secret-stdin --timeout --webhook-secret-command --webhook-secret-stdin' ;;
    'profiles list') echo '--jq --json --no-input --output --quiet' ;;
    'profiles remove') echo '--jq --json --no-input --output --quiet' ;;
    'profiles show') echo '--jq --json --no-input --output --quiet' ;;
    'profiles use') echo '--jq --json --no-input --output --quiet' ;;
    'request') echo '--ca-file --data --dry-run --idempotency-key --include --journal --jq --json --no-input --output --profile --query --quiet --retries --timeout --verbose --yes' ;;
    'sign') echo '--data --idempotency-key --jq --json --key-id --method --no-input --nonce --output --path --profile --query --quiet --timestamp' ;;
    'sign diagnose') echo '--jq --json --no-input --now --output --profile --quiet --request --show-valid-signature --try-secret-commands' ;;
    'smoke') echo '--amount --jq --json --junit --mock --no-input --output --profile --quiet --timeout' ;;
    'webhooks listen') echo '--control-url --forward-to --host --jq --json --max-events --mock --no-input --output --port --profile --quiet --tolerance' ;;
    'webhooks sign') echo '--jq --json --no-input --output --payload --profile --quiet --timestamp' ;;
    'webhooks test') echo '--jq --json --junit --no-input --output --profile --quiet --timeout' ;;
    'webhooks trigger') echo '--control-url --data --dry-run --jq --json --merchant --mode --no-input --output --profile --quiet' ;;
    'webhooks verify') echo '--header --jq --json --no-input --now --output --payload --profile --quiet --tolerance' ;;
  esac
}
_cardctl_flag_values() {
  case "$1" in
    'cards freeze --output') echo 'text table json' ;;
    'cards get --output') echo 'text table json' ;;
    'cards issue --output') echo 'text table json' ;;
    'cards recharge --output') echo 'text table json' ;;
    'cards terminate --output') echo 'text table json' ;;
    'cards terminate --reason') echo 'lost stolen fraud no_longer_needed other' ;;
    'cards transactions --output') echo 'table text json ndjson csv tsv' ;;
    'cards unfreeze --output') echo 'text table json' ;;
    'completion --output') echo 'text table json' ;;
    'config --output') echo 'text table json' ;;
    'customers create --customer-type') echo 'individual business' ;;
    'customers create --id-type') echo 'bvn nin passport drivers_license national_id vnin voters_card ghana_card' ;;
    'customers create --output') echo 'text table json' ;;
    'customers get --output') echo 'text table json' ;;
    'customers kyc --output') echo 'text table json' ;;
    'customers list --output') echo 'table text json ndjson csv tsv' ;;
    'customers update --customer-type') echo 'individual business' ;;
    'customers update --id-type') echo 'bvn nin passport drivers_license national_id vnin voters_card ghana_card' ;;
    'customers update --output') echo 'text table json' ;;
    'customers update --status') echo 'active disabled' ;;
    'demo --output') echo 'text table json' ;;
    'deposit-addresses create --output') echo 'text table json' ;;
    'deposit-addresses list --output') echo 'text table json' ;;
    'deposits list --output') echo 'table text json ndjson csv tsv' ;;
    'doctor --output') echo 'text table json' ;;
    'mock clock --output') echo 'text table json' ;;
    'mock clock advance --output') echo 'text table json' ;;
    'mock console --output') echo 'text table json' ;;
    'mock deposits add --output') echo 'text table json' ;;
    'mock deposits add --status') echo 'pending credited flagged' ;;
    'mock events --output') echo 'text table json' ;;
    'mock events emit --mode') echo 'test live' ;;
    'mock events emit --output') echo 'text table json' ;;
    'mock faults --output') echo 'text table json' ;;
    'mock faults add --kind') echo '503 500 500_after_commit drop slow async_202 issue_failed' ;;
    'mock faults add --operation') echo 'issue recharge terminate any cards.issue cards.get cards.recharge cards.freeze cards.unfreeze cards.terminate cards.transactions customers.create customers.list customers.get customers.update customers.kyc depositAddresses.create depositAddresses.list deposits.list' ;;
    'mock faults add --output') echo 'text table json' ;;
    'mock faults clear --output') echo 'text table json' ;;
    'mock keys create --mode') echo 'test live' ;;
    'mock keys create --output') echo 'text table json' ;;
    'mock keys revoke --output') echo 'text table json' ;;
    'mock keys roll --output') echo 'text table json' ;;
    'mock keys rotate --output') echo 'text table json' ;;
    'mock kyc --output') echo 'text table json' ;;
    'mock kyc --verdict') echo 'approved rejected' ;;
    'mock merchants create --output') echo 'text table json' ;;
    'mock networks --output') echo 'text table json' ;;
    'mock networks set --output') echo 'text table json' ;;
    'mock products --output') echo 'text table json' ;;
    'mock products set --output') echo 'text table json' ;;
    'mock provision --outcome') echo 'active failed' ;;
    'mock provision --output') echo 'text table json' ;;
    'mock requests --output') echo 'text table json' ;;
    'mock requests show --output') echo 'text table json' ;;
    'mock reset --output') echo 'text table json' ;;
    'mock snapshot list --output') echo 'text table json' ;;
    'mock snapshot restore --output') echo 'text table json' ;;
    'mock snapshot save --output') echo 'text table json' ;;
    'mock start --output') echo 'text table json' ;;
    'mock state --output') echo 'text table json' ;;
    'mock transactions add --output') echo 'text table json' ;;
    'mock transactions add --status') echo 'pending completed declined reversed' ;;
    'mock transactions add --type') echo 'authorization capture refund reversal decline' ;;
    'mock wallets --output') echo 'text table json' ;;
    'mock webhook-deliveries --output') echo 'text table json' ;;
    'mock webhook-deliveries --state') echo 'pending succeeded dead' ;;
    'mock webhook-endpoints --output') echo 'text table json' ;;
    'mock webhook-endpoints add --output') echo 'text table json' ;;
    'mock webhook-endpoints enable --output') echo 'text table json' ;;
    'mock webhook-endpoints remove --output') echo 'text table json' ;;
    'mock withdrawals add --outcome') echo 'completed rejected failed cancelled' ;;
    'mock withdrawals add --output') echo 'text table json' ;;
    'ops compact --output') echo 'text table json' ;;
    'ops copy --output') echo 'text table json' ;;
    'ops list --output') echo 'text table json' ;;
    'ops replay --output') echo 'text table json' ;;
    'ops resolve --outcome') echo 'succeeded failed' ;;
    'ops resolve --output') echo 'text table json' ;;
    'ops show --output') echo 'text table json' ;;
    'ops verify --output') echo 'text table json' ;;
    'profiles add --mode') echo 'test live' ;;
    'profiles add --output') echo 'text table json' ;;
    'profiles list --output') echo 'text table json' ;;
    'profiles remove --output') echo 'text table json' ;;
    'profiles show --output') echo 'text table json' ;;
    'profiles use --output') echo 'text table json' ;;
    'request --output') echo 'text table json' ;;
    'sign --output') echo 'text table json' ;;
    'sign diagnose --output') echo 'text table json' ;;
    'smoke --output') echo 'text table json' ;;
    'webhooks listen --output') echo 'text table json' ;;
    'webhooks sign --output') echo 'text table json' ;;
    'webhooks test --output') echo 'text table json' ;;
    'webhooks trigger --mode') echo 'test live' ;;
    'webhooks trigger --output') echo 'text table json' ;;
    'webhooks verify --output') echo 'text table json' ;;
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
