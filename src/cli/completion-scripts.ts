// The completion scripts of bash, zsh and fish, written from a CompletionModel. Each offers the
// commands after `messaging-gateway`, a command's subcommands (or trigger's kinds) as its first
// argument, its options after a dash, the values of an option that takes a known set, and files
// where nothing else fits (replay and decode take files).
import type { CompletedPath, CompletionModel } from './completion.js';

const NAME = 'messaging-gateway';

/** The words, space-separated; each is checked to need no quoting in any of the three shells. */
function words(list: readonly string[]): string {
  for (const word of list)
    if (!/^[\w.-]+$/.test(word)) throw new Error(`a completion word needs quoting: ${JSON.stringify(word)}`);
  return list.join(' ');
}

/** `channels connect` → `channels`, `connect`; the subcommand is empty for a command alone. */
const split = (path: string): [string, string] => {
  const [command = '', sub = ''] = path.split(' ');
  return [command, sub];
};

/** The paths with a subcommand first: a shell's case takes the first pattern that matches. */
const mostSpecificFirst = (paths: readonly CompletedPath[]): CompletedPath[] =>
  [...paths].sort((a, b) => split(b.path)[1].length - split(a.path)[1].length);

/**
 * bash: a function for `complete -F`; with `-o default`, files when it offers nothing. It runs in
 * the user's shell, so it holds under `set -u` (a word past the last reads as empty) and whatever
 * `IFS` is set to (its own, local, splits the lists).
 */
export function bashScript(model: CompletionModel): string {
  const values = Object.entries(model.values).map(
    ([option, list]) => `    ${option}) words='${words(list)}' ;;`,
  );
  const cases = mostSpecificFirst(model.paths).map(({ path, first, options }) => {
    const [command, sub] = split(path);
    const pattern = sub ? `'${command} ${sub}'` : `'${command} '*`;
    return `      ${pattern}) first='${words(first)}'; options='${words(options)}' ;;`;
  });
  return `# bash completion for ${NAME}: source <(${NAME} completion bash)
_messaging_gateway() {
  local IFS=$' \\t\\n'
  local cur=\${COMP_WORDS[COMP_CWORD]-} prev=\${COMP_WORDS[COMP_CWORD-1]-}
  local key="\${COMP_WORDS[1]-} \${COMP_WORDS[2]-}" first='' options='' words=''
  case "$prev" in
${values.join('\n')}
  esac
  if [[ -z $words ]]; then
    if (( COMP_CWORD == 1 )); then
      words='${words([...model.commands, ...model.flags])}'
    else
      (( COMP_CWORD == 2 )) && key="\${COMP_WORDS[1]-} "
      case "$key" in
${cases.join('\n')}
      esac
      if (( COMP_CWORD == 2 )) && [[ $cur != -* ]]; then words=$first
      elif [[ $cur == -* ]]; then words=$options
      fi
    fi
  fi
  [[ -n $words ]] && COMPREPLY=($(compgen -W "$words" -- "$cur"))
  return 0
}
complete -o default -F _messaging_gateway ${NAME}
`;
}

/** zsh: a completion function, for `source <(…)` or a file `_messaging-gateway` on `fpath`. */
export function zshScript(model: CompletionModel): string {
  const values = Object.entries(model.values).map(
    ([option, list]) => `    ${option}) list=(${words(list)}) ;;`,
  );
  const cases = mostSpecificFirst(model.paths).map(({ path, first, options }) => {
    const [command, sub] = split(path);
    const pattern = sub ? `'${command} ${sub}'` : `'${command} '*`;
    return `      ${pattern}) first=(${words(first)}); options=(${words(options)}) ;;`;
  });
  return `#compdef ${NAME}
# zsh completion for ${NAME}: source <(${NAME} completion zsh), or save it as _${NAME} on $fpath
_messaging_gateway() {
  local cur=\${words[CURRENT]} prev=\${words[CURRENT-1]} key="\${words[2]} \${words[3]}"
  local -a list first options
  case $prev in
${values.join('\n')}
  esac
  if (( ! \${#list} )); then
    if (( CURRENT == 2 )); then
      if [[ $cur == -* ]]; then list=(${words(model.flags)}); else list=(${words(model.commands)}); fi
    else
      (( CURRENT == 3 )) && key="\${words[2]} "
      case $key in
${cases.join('\n')}
      esac
      if (( CURRENT == 3 )) && [[ $cur != -* ]]; then list=($first)
      elif [[ $cur == -* ]]; then list=($options)
      fi
    fi
  fi
  if (( \${#list} )); then compadd -a list; else _files; fi
}
if [[ \${zsh_eval_context[-1]} == loadautofunc ]]; then
  _messaging_gateway "$@"
else
  compdef _messaging_gateway ${NAME}
fi
`;
}

/** The fish condition of a path: its words typed, and not a longer path's (channels, not channels connect). */
function fishCondition({ path }: CompletedPath, model: CompletionModel): string {
  const longer = model.paths.filter((p) => p.path.startsWith(`${path} `)).map((p) => p.path);
  return [`__messaging_gateway_at ${path}`, ...longer.map((p) => `not __messaging_gateway_at ${p}`)].join(
    '; and ',
  );
}

/** fish: `complete` lines; files where no line says otherwise. */
export function fishScript(model: CompletionModel): string {
  const c = `complete -c ${NAME}`;
  const lines = [
    `${c} -f -n '__messaging_gateway_words 1' -a '${words(model.commands)}'`,
    ...model.flags.map((flag) => `${c} -n '__messaging_gateway_words 1' -l ${flag.slice(2)}`),
  ];
  for (const path of model.paths) {
    const at = fishCondition(path, model);
    if (path.first.length)
      lines.push(`${c} -f -n '__messaging_gateway_words 2; and ${at}' -a '${words(path.first)}'`);
    for (const option of path.options) {
      const values = model.values[option];
      const takes = values ? ` -x -a '${words(values)}'` : model.takesValue.includes(option) ? ' -r' : '';
      lines.push(`${c} -n '${at}' -l ${words([option.slice(2)])}${takes}`);
    }
  }
  return `# fish completion for ${NAME}: ${NAME} completion fish | source
# (or save it as ~/.config/fish/completions/${NAME}.fish)
function __messaging_gateway_words --description 'true when this many words are typed before the cursor'
    test (count (commandline -opc)) -eq $argv[1]
end
function __messaging_gateway_at --description 'true when the command line starts with these words'
    set -l typed (commandline -opc)
    set -e typed[1]
    test (count $typed) -ge (count $argv); or return 1
    for i in (seq (count $argv))
        test "$typed[$i]" = "$argv[$i]"; or return 1
    end
end
complete -c ${NAME} -e
${lines.join('\n')}
`;
}
