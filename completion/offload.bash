# bash completion for offload and the links named after its applets
# (clang-offload-bundler, offload-ls, ...): applet names after `offload`,
# the options of each applet's option table after a dash, files otherwise.
# Installed as completions/offload, with a link per applet name so that
# bash-completion loads it for any of them.

# The options of the applet (and command) "$@" runs, from its option
# table: `offload --list-options NAME [COMMAND]` ("-t", "--target=", an
# option that takes a value with its "="), asked of the binary the command
# is a link to (else of the offload on PATH).
_offload_options()
{
	local self=offload
	local -a what=("${@:2}")

	[[ ${1##*/} == offload ]] || what=("${1##*/}" "${@:2}")
	self=$(readlink -f "$(command -v "$1")" 2>/dev/null)
	[[ ${self##*/} == offload ]] || self=offload
	"$self" --list-options "${what[@]}" 2>/dev/null
}

_offload()
{
	local cur=${COMP_WORDS[COMP_CWORD]} cmd=${COMP_WORDS[0]}
	local -a run=("$cmd")

	if [[ ${cmd##*/} == offload ]]; then
		if ((COMP_CWORD == 1)); then
			COMPREPLY=($(compgen -W "$("$cmd" --list 2>/dev/null |
				awk '/^Applets:/ { on = 1; next } on && $1 != "also" { print $1 }')
				--help --list --version" -- "$cur"))
			return
		fi
		run+=("${COMP_WORDS[1]}")
	fi
	# An applet of subcommands ("Usage: offload kpack COMMAND ..."): the
	# commands its --help lists ("  split ..."), then the command's options
	# (its own options before a command).
	if "${run[@]}" --help 2>/dev/null | head -n 1 | grep -q ' COMMAND '; then
		if ((COMP_CWORD == ${#run[@]})) && [[ $cur != -* ]]; then
			COMPREPLY=($(compgen -W "$("${run[@]}" --help 2>/dev/null |
				awk '/^  [a-z]/ { print $1 }')" -- "$cur"))
			return
		fi
		((COMP_CWORD > ${#run[@]})) && run+=("${COMP_WORDS[${#run[@]}]}")
	fi
	[[ $cur == -* ]] || return	# files, by -o default
	COMPREPLY=($(compgen -W "$(_offload_options "${run[@]}")" -- "$cur"))
	[[ ${#COMPREPLY[@]} == 1 && ${COMPREPLY[0]} == *= ]] && compopt -o nospace
}

complete -o default -F _offload offload $(offload --list 2>/dev/null |
	awk '$1 == "also" && $2 == "as" { print $3 }')
