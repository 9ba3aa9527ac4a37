// The one install line of each shell's completion (issue 38), said the same in `completion
// --help` and docs/commands.md (a test holds them equal and runs them). Each is idempotent (run
// twice, it installs once) and always current: the shell asks `cardctl completion SHELL` when it
// starts (bash, zsh) or first completes cardctl (fish), so an upgrade needs nothing redone.
export const INSTALL_LINES = {
  bash: `grep -qs 'cardctl completion bash' ~/.bashrc || echo 'eval "$(cardctl completion bash)"' >> ~/.bashrc`,
  zsh: `grep -qs 'cardctl completion zsh' ~/.zshrc || echo 'source <(cardctl completion zsh)' >> ~/.zshrc`,
  fish: `mkdir -p ~/.config/fish/completions && echo 'cardctl completion fish | source' > ~/.config/fish/completions/cardctl.fish`,
} as const;
