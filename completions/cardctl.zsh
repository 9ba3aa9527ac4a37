#compdef cardctl
# cardctl shell completion. Generated from oclif.manifest.json by scripts/completions.mjs; do not edit.

_cardctl_subcommands() {
  case "$1" in
    '') print -r -- 'cards completion config customers demo deposit-addresses deposits doctor mock ops profiles request sign smoke webhooks' ;;
    'cards') print -r -- 'freeze get issue recharge terminate transactions unfreeze' ;;
    'customers') print -r -- 'create get kyc list update' ;;
    'deposit-addresses') print -r -- 'create list' ;;
    'deposits') print -r -- 'list' ;;
    'mock') print -r -- 'clock console deposits events faults keys kyc merchants networks products provision requests reset snapshot start state transactions wallets webhook-deliveries webhook-endpoints withdrawals' ;;
    'mock clock') print -r -- 'advance' ;;
    'mock deposits') print -r -- 'add' ;;
    'mock events') print -r -- 'emit' ;;
    'mock faults') print -r -- 'add clear' ;;
    'mock keys') print -r -- 'create revoke roll rotate' ;;
    'mock merchants') print -r -- 'create' ;;
    'mock networks') print -r -- 'set' ;;
    'mock products') print -r -- 'set' ;;
    'mock requests') print -r -- 'show' ;;
    'mock snapshot') print -r -- 'list restore save' ;;
    'mock transactions') print -r -- 'add' ;;
    'mock webhook-endpoints') print -r -- 'add enable remove' ;;
    'mock withdrawals') print -r -- 'add' ;;
    'ops') print -r -- 'compact copy list replay resolve show verify' ;;
    'profiles') print -r -- 'add list remove show use' ;;
    'sign') print -r -- 'diagnose' ;;
    'webhooks') print -r -- 'listen sign test trigger verify' ;;
  esac
}
_cardctl_flags() {
  case "$1" in
    'cards freeze') print -r -- '--ca-file --dry-run --jq --json --no-input --output --profile --quiet --retries --timeout --verbose' ;;
    'cards get') print -r -- '--ca-file --dry-run --jq --json --no-input --output --profile --quiet --retries --timeout --verbose' ;;
    'cards issue') print -r -- '--allow-duplicates --allow-repeat --amount --batch --ca-file --concurrency --customer --dry-run --idempotency-key --idempotency-prefix --journal --jq --json --no-input --output --product --profile --quiet --retries --timeout --verbose --wait --wait-timeout --yes' ;;
    'cards recharge') print -r -- '--allow-duplicates --allow-repeat --amount --batch --ca-file --concurrency --dry-run --idempotency-key --idempotency-prefix --journal --jq --json --no-input --output --profile --quiet --retries --timeout --verbose --yes' ;;
    'cards terminate') print -r -- '--ca-file --dry-run --idempotency-key --journal --jq --json --no-input --output --profile --quiet --reason --retries --timeout --verbose --yes' ;;
    'cards transactions') print -r -- '--all --ca-file --columns --cursor --dry-run --jq --json --ndjson --no-input --output --per-page --profile --quiet --raw-cells --retries --timeout --verbose' ;;
    'cards unfreeze') print -r -- '--ca-file --dry-run --jq --json --no-input --output --profile --quiet --retries --timeout --verbose' ;;
    'completion') print -r -- '--jq --json --no-input --output --quiet' ;;
    'config') print -r -- '--ca-file --journal --jq --json --no-input --output --profile --quiet --retries --timeout' ;;
    'customers create') print -r -- '--account-purpose --annual-salary --business-name --ca-file --city --country --customer-type --date-of-birth --dial-code --dry-run --email --employment-status --expected-monthly-volume --first-name --from --id-front-image --id-number --id-type --jq --json --last-name --line1 --no-input --occupation --output --phone-number --place-of-birth --postal-code --profile --quiet --registration-number --retries --state --terms-of-service-accepted --timeout --verbose' ;;
    'customers get') print -r -- '--ca-file --dry-run --jq --json --no-input --output --profile --quiet --retries --timeout --verbose' ;;
    'customers kyc') print -r -- '--ca-file --dry-run --jq --json --no-input --output --profile --quiet --retries --timeout --verbose' ;;
    'customers list') print -r -- '--all --ca-file --columns --cursor --dry-run --jq --json --ndjson --no-input --output --per-page --profile --quiet --raw-cells --retries --timeout --verbose' ;;
    'customers update') print -r -- '--account-purpose --annual-salary --business-name --ca-file --city --country --customer-type --date-of-birth --dial-code --dry-run --email --employment-status --expected-monthly-volume --first-name --from --id-front-image --id-number --id-type --jq --json --last-name --line1 --no-input --occupation --output --phone-number --place-of-birth --postal-code --profile --quiet --registration-number --retries --state --status --terms-of-service-accepted --timeout --verbose' ;;
    'demo') print -r -- '--jq --json --keep --no-input --output --quiet --seed' ;;
    'deposit-addresses create') print -r -- '--ca-file --dry-run --jq --json --network --no-input --output --profile --quiet --retries --timeout --verbose' ;;
    'deposit-addresses list') print -r -- '--ca-file --dry-run --jq --json --no-input --output --profile --quiet --retries --timeout --verbose' ;;
    'deposits list') print -r -- '--all --ca-file --columns --cursor --dry-run --jq --json --ndjson --no-input --output --per-page --profile --quiet --raw-cells --retries --timeout --verbose' ;;
    'doctor') print -r -- '--ca-file --journal --jq --json --no-input --output --profile --quiet --timeout --verbose' ;;
    'mock clock') print -r -- '--control-url --jq --json --no-input --output --profile --quiet' ;;
    'mock clock advance') print -r -- '--control-url --jq --json --no-input --output --profile --quiet' ;;
    'mock console') print -r -- '--control-url --jq --json --no-input --output --profile --quiet' ;;
    'mock deposits add') print -r -- '--asset-amount --control-url --jq --json --merchant --network --no-input --output --profile --quiet --status' ;;
    'mock events') print -r -- '--control-url --jq --json --merchant --no-input --output --profile --quiet' ;;
    'mock events emit') print -r -- '--control-url --data --jq --json --merchant --mode --no-input --output --profile --quiet' ;;
    'mock faults') print -r -- '--control-url --jq --json --no-input --output --profile --quiet' ;;
    'mock faults add') print -r -- '--control-url --count --jq --json --kind --merchant --ms --no-input --operation --output --profile --quiet' ;;
    'mock faults clear') print -r -- '--control-url --jq --json --no-input --output --profile --quiet' ;;
    'mock keys create') print -r -- '--control-url --expires-in --ip --jq --json --merchant --mode --no-input --output --profile --quiet --scope' ;;
    'mock keys revoke') print -r -- '--control-url --jq --json --no-input --output --profile --quiet' ;;
    'mock keys roll') print -r -- '--control-url --jq --json --no-input --output --profile --quiet' ;;
    'mock keys rotate') print -r -- '--control-url --jq --json --no-input --output --profile --quiet' ;;
    'mock kyc') print -r -- '--control-url --jq --json --no-input --output --profile --quiet --reason --verdict' ;;
    'mock merchants create') print -r -- '--control-url --jq --json --no-input --output --profile --quiet' ;;
    'mock networks') print -r -- '--control-url --jq --json --no-input --output --profile --quiet' ;;
    'mock networks set') print -r -- '--control-url --jq --json --no-input --output --profile --quiet' ;;
    'mock products') print -r -- '--control-url --jq --json --no-input --output --profile --quiet' ;;
    'mock products set') print -r -- '--available --control-url --default --enabled --jq --json --no-input --output --profile --quiet' ;;
    'mock provision') print -r -- '--control-url --jq --json --no-input --outcome --output --profile --quiet' ;;
    'mock requests') print -r -- '--control-url --failed --follow --jq --json --key --limit --ndjson --no-input --output --path --profile --quiet --status' ;;
    'mock requests show') print -r -- '--control-url --jq --json --no-input --output --profile --quiet' ;;
    'mock reset') print -r -- '--control-url --jq --json --no-input --output --profile --quiet' ;;
    'mock snapshot list') print -r -- '--control-url --jq --json --no-input --output --profile --quiet' ;;
    'mock snapshot restore') print -r -- '--control-url --jq --json --no-input --output --profile --quiet' ;;
    'mock snapshot save') print -r -- '--control-url --jq --json --no-input --output --profile --quiet' ;;
    'mock start') print -r -- '--console --host --jq --json --log --no-input --output --port --quiet --rate-limit --recover --request-log --save-profiles --seed --state --webhook' ;;
    'mock state') print -r -- '--control-url --jq --json --no-input --output --profile --quiet' ;;
    'mock transactions add') print -r -- '--amount --control-url --currency --jq --json --no-input --occurred-at --output --profile --quiet --status --type' ;;
    'mock wallets') print -r -- '--control-url --jq --json --no-input --output --profile --quiet' ;;
    'mock webhook-deliveries') print -r -- '--control-url --endpoint --event --jq --json --merchant --no-input --output --profile --quiet --state' ;;
    'mock webhook-endpoints') print -r -- '--control-url --jq --json --no-input --output --profile --quiet' ;;
    'mock webhook-endpoints add') print -r -- '--control-url --jq --json --merchant --no-input --output --profile --quiet' ;;
    'mock webhook-endpoints enable') print -r -- '--control-url --jq --json --no-input --output --profile --quiet' ;;
    'mock webhook-endpoints remove') print -r -- '--control-url --jq --json --no-input --output --profile --quiet' ;;
    'mock withdrawals add') print -r -- '--amount --control-url --fee --jq --json --merchant --no-input --outcome --output --profile --quiet' ;;
    'ops compact') print -r -- '--journal --jq --json --no-input --older-than --output --quiet' ;;
    'ops copy') print -r -- '--journal --jq --json --no-input --output --quiet --to' ;;
    'ops list') print -r -- '--all --card --journal --jq --json --key --limit --ndjson --no-input --output --quiet --since --unresolved --until' ;;
    'ops replay') print -r -- '--ca-file --dry-run --include --journal --jq --json --no-input --output --profile --quiet --retries --timeout --verbose --yes' ;;
    'ops resolve') print -r -- '--journal --jq --json --no-input --note --outcome --output --quiet' ;;
    'ops show') print -r -- '--journal --jq --json --no-input --output --quiet' ;;
    'ops verify') print -r -- '--discard-unreadable --journal --jq --json --no-input --output --quiet' ;;
    'profiles add') print -r -- '--base-url --ca-file --default --force --jq --json --key-id --mode --no-input --output --quiet --secret-command --secret-command-timeout --secret-stdin --timeout --webhook-secret-command --webhook-secret-stdin' ;;
    'profiles list') print -r -- '--jq --json --no-input --output --quiet' ;;
    'profiles remove') print -r -- '--jq --json --no-input --output --quiet' ;;
    'profiles show') print -r -- '--jq --json --no-input --output --quiet' ;;
    'profiles use') print -r -- '--jq --json --no-input --output --quiet' ;;
    'request') print -r -- '--ca-file --data --dry-run --idempotency-key --include --journal --jq --json --no-input --output --profile --query --quiet --retries --timeout --verbose --yes' ;;
    'sign') print -r -- '--data --idempotency-key --jq --json --key-id --method --no-input --nonce --output --path --profile --query --quiet --timestamp' ;;
    'sign diagnose') print -r -- '--jq --json --no-input --now --output --profile --quiet --request --show-valid-signature --try-secret-commands' ;;
    'smoke') print -r -- '--amount --jq --json --junit --mock --no-input --output --profile --quiet --timeout' ;;
    'webhooks listen') print -r -- '--control-url --forward-to --host --jq --json --max-events --mock --no-input --output --port --profile --quiet --tolerance' ;;
    'webhooks sign') print -r -- '--jq --json --no-input --output --payload --profile --quiet --timestamp' ;;
    'webhooks test') print -r -- '--jq --json --junit --no-input --output --profile --quiet --timeout' ;;
    'webhooks trigger') print -r -- '--control-url --data --dry-run --jq --json --merchant --mode --no-input --output --profile --quiet' ;;
    'webhooks verify') print -r -- '--header --jq --json --no-input --now --output --payload --profile --quiet --tolerance' ;;
  esac
}
_cardctl_flag_values() {
  case "$1" in
    'cards freeze --output') print -r -- 'text table json' ;;
    'cards get --output') print -r -- 'text table json' ;;
    'cards issue --output') print -r -- 'text table json' ;;
    'cards recharge --output') print -r -- 'text table json' ;;
    'cards terminate --output') print -r -- 'text table json' ;;
    'cards terminate --reason') print -r -- 'lost stolen fraud no_longer_needed other' ;;
    'cards transactions --output') print -r -- 'table text json ndjson csv tsv' ;;
    'cards unfreeze --output') print -r -- 'text table json' ;;
    'completion --output') print -r -- 'text table json' ;;
    'config --output') print -r -- 'text table json' ;;
    'customers create --customer-type') print -r -- 'individual business' ;;
    'customers create --id-type') print -r -- 'bvn nin passport drivers_license national_id vnin voters_card ghana_card' ;;
    'customers create --output') print -r -- 'text table json' ;;
    'customers get --output') print -r -- 'text table json' ;;
    'customers kyc --output') print -r -- 'text table json' ;;
    'customers list --output') print -r -- 'table text json ndjson csv tsv' ;;
    'customers update --customer-type') print -r -- 'individual business' ;;
    'customers update --id-type') print -r -- 'bvn nin passport drivers_license national_id vnin voters_card ghana_card' ;;
    'customers update --output') print -r -- 'text table json' ;;
    'customers update --status') print -r -- 'active disabled' ;;
    'demo --output') print -r -- 'text table json' ;;
    'deposit-addresses create --output') print -r -- 'text table json' ;;
    'deposit-addresses list --output') print -r -- 'text table json' ;;
    'deposits list --output') print -r -- 'table text json ndjson csv tsv' ;;
    'doctor --output') print -r -- 'text table json' ;;
    'mock clock --output') print -r -- 'text table json' ;;
    'mock clock advance --output') print -r -- 'text table json' ;;
    'mock console --output') print -r -- 'text table json' ;;
    'mock deposits add --output') print -r -- 'text table json' ;;
    'mock deposits add --status') print -r -- 'pending credited flagged' ;;
    'mock events --output') print -r -- 'text table json' ;;
    'mock events emit --mode') print -r -- 'test live' ;;
    'mock events emit --output') print -r -- 'text table json' ;;
    'mock faults --output') print -r -- 'text table json' ;;
    'mock faults add --kind') print -r -- '503 500 500_after_commit drop slow async_202 issue_failed' ;;
    'mock faults add --operation') print -r -- 'issue recharge terminate any cards.issue cards.get cards.recharge cards.freeze cards.unfreeze cards.terminate cards.transactions customers.create customers.list customers.get customers.update customers.kyc depositAddresses.create depositAddresses.list deposits.list' ;;
    'mock faults add --output') print -r -- 'text table json' ;;
    'mock faults clear --output') print -r -- 'text table json' ;;
    'mock keys create --mode') print -r -- 'test live' ;;
    'mock keys create --output') print -r -- 'text table json' ;;
    'mock keys revoke --output') print -r -- 'text table json' ;;
    'mock keys roll --output') print -r -- 'text table json' ;;
    'mock keys rotate --output') print -r -- 'text table json' ;;
    'mock kyc --output') print -r -- 'text table json' ;;
    'mock kyc --verdict') print -r -- 'approved rejected' ;;
    'mock merchants create --output') print -r -- 'text table json' ;;
    'mock networks --output') print -r -- 'text table json' ;;
    'mock networks set --output') print -r -- 'text table json' ;;
    'mock products --output') print -r -- 'text table json' ;;
    'mock products set --output') print -r -- 'text table json' ;;
    'mock provision --outcome') print -r -- 'active failed' ;;
    'mock provision --output') print -r -- 'text table json' ;;
    'mock requests --output') print -r -- 'text table json' ;;
    'mock requests show --output') print -r -- 'text table json' ;;
    'mock reset --output') print -r -- 'text table json' ;;
    'mock snapshot list --output') print -r -- 'text table json' ;;
    'mock snapshot restore --output') print -r -- 'text table json' ;;
    'mock snapshot save --output') print -r -- 'text table json' ;;
    'mock start --output') print -r -- 'text table json' ;;
    'mock state --output') print -r -- 'text table json' ;;
    'mock transactions add --output') print -r -- 'text table json' ;;
    'mock transactions add --status') print -r -- 'pending completed declined reversed' ;;
    'mock transactions add --type') print -r -- 'authorization capture refund reversal decline' ;;
    'mock wallets --output') print -r -- 'text table json' ;;
    'mock webhook-deliveries --output') print -r -- 'text table json' ;;
    'mock webhook-deliveries --state') print -r -- 'pending succeeded dead' ;;
    'mock webhook-endpoints --output') print -r -- 'text table json' ;;
    'mock webhook-endpoints add --output') print -r -- 'text table json' ;;
    'mock webhook-endpoints enable --output') print -r -- 'text table json' ;;
    'mock webhook-endpoints remove --output') print -r -- 'text table json' ;;
    'mock withdrawals add --outcome') print -r -- 'completed rejected failed cancelled' ;;
    'mock withdrawals add --output') print -r -- 'text table json' ;;
    'ops compact --output') print -r -- 'text table json' ;;
    'ops copy --output') print -r -- 'text table json' ;;
    'ops list --output') print -r -- 'text table json' ;;
    'ops replay --output') print -r -- 'text table json' ;;
    'ops resolve --outcome') print -r -- 'succeeded failed' ;;
    'ops resolve --output') print -r -- 'text table json' ;;
    'ops show --output') print -r -- 'text table json' ;;
    'ops verify --output') print -r -- 'text table json' ;;
    'profiles add --mode') print -r -- 'test live' ;;
    'profiles add --output') print -r -- 'text table json' ;;
    'profiles list --output') print -r -- 'text table json' ;;
    'profiles remove --output') print -r -- 'text table json' ;;
    'profiles show --output') print -r -- 'text table json' ;;
    'profiles use --output') print -r -- 'text table json' ;;
    'request --output') print -r -- 'text table json' ;;
    'sign --output') print -r -- 'text table json' ;;
    'sign diagnose --output') print -r -- 'text table json' ;;
    'smoke --output') print -r -- 'text table json' ;;
    'webhooks listen --output') print -r -- 'text table json' ;;
    'webhooks sign --output') print -r -- 'text table json' ;;
    'webhooks test --output') print -r -- 'text table json' ;;
    'webhooks trigger --mode') print -r -- 'test live' ;;
    'webhooks trigger --output') print -r -- 'text table json' ;;
    'webhooks verify --output') print -r -- 'text table json' ;;
  esac
}
_cardctl_args() {
  case "$1" in
    'completion') print -r -- 'bash zsh fish' ;;
    'mock events emit') print -r -- 'customer.kyc.pending customer.kyc.approved customer.kyc.rejected card.issued card.terminated deposit.credited withdrawal.requested withdrawal.approved withdrawal.completed withdrawal.rejected withdrawal.failed withdrawal.cancelled' ;;
    'webhooks trigger') print -r -- 'customer.kyc.pending customer.kyc.approved customer.kyc.rejected card.issued card.terminated deposit.credited withdrawal.requested withdrawal.approved withdrawal.completed withdrawal.rejected withdrawal.failed withdrawal.cancelled' ;;
  esac
}
_cardctl_profiles() { cardctl profiles list --json 2>/dev/null | sed -n 's/^ *"name": *"\([^"]*\)".*/\1/p'; }
_cardctl_profile_arg() { case "$1" in 'profiles remove'|'profiles show'|'profiles use') return 0 ;; esac; return 1; }
_cardctl() {
  local cmd="" w i values
  for ((i = 2; i < CURRENT; i++)); do
    w="${words[i]}"
    [[ "$w" == -* ]] && break
    if [[ " $(_cardctl_subcommands "$cmd") " == *" $w "* ]]; then cmd="${cmd:+$cmd }$w"; else break; fi
  done
  values="$(_cardctl_flag_values "$cmd ${words[CURRENT-1]}")"
  if [[ -n "$values" ]]; then compadd -- ${=values}; return; fi
  if [[ "${words[CURRENT-1]}" == (-p|--profile) && " $(_cardctl_flags "$cmd") " == *" --profile "* ]]; then compadd -- ${(f)"$(_cardctl_profiles)"}; return; fi
  if [[ "${words[CURRENT]}" == -* ]]; then compadd -- ${=$(_cardctl_flags "$cmd")} --help; return; fi
  if _cardctl_profile_arg "$cmd"; then compadd -- ${(f)"$(_cardctl_profiles)"}; return; fi
  values="$(_cardctl_args "$cmd")"
  if [[ -n "$values" ]]; then compadd -- ${=values}; return; fi
  # Files only where no word of ours fits (a flag's value such as --batch FILE), like bash's -o default.
  compadd -- ${=$(_cardctl_subcommands "$cmd")} || _files
}
# Autoloaded from fpath, this file is the body of _cardctl: complete now. Sourced: register.
# (sourced from a ~/.zshrc that never ran compinit: run it, so the one install line always works)
if [[ "${funcstack[1]}" == _cardctl ]]; then _cardctl "$@"; else (( $+functions[compdef] )) || { autoload -Uz compinit && compinit; }; compdef _cardctl cardctl; fi
