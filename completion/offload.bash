# bash completion for offload and the links named after its applets
# (clang-offload-bundler, offload-ls, ...): applet names after `offload`,
# the options each applet's --help lists after a dash, files otherwise.
# Installed as completions/offload, with a link per applet name so that
# bash-completion loads it for any of them.

# The options in --help: the option column of each line that starts with
# a dash after at most six spaces ("-z, --compress", "--input=<string>",
# "-o <file>"; a description goes on further in), each option up to and
# including its "=" (an optional one, "--compress[=METHOD]", without).
_offload_options()
{
	"$@" --help 2>/dev/null | awk '/^ +-[^ ]/ && match($0, /^ +/) && RLENGTH <= 6 {
		sub(/^ +/, ""); sub(/  .*/, ""); sub(/ - .*/, "")
		n = split($0, part, ", ")
		for (i = 1; i <= n; i++) {
			o = part[i]
			if (o ~ /^[^=]*\[=/)	# optional: the bare option
				sub(/\[=.*/, "", o)
			else if (o ~ /=/)
				sub(/=.*/, "=", o)
			else
				sub(/[ <[].*/, "", o)
			print o
		}
	}'
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
