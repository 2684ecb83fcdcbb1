# tuner/sweetspot.bash: bash completion for sweetspot, installed as
# share/bash-completion/completions/sweetspot.
#
# Commands and each command's options are read at completion time from
# `sweetspot --help` and `sweetspot COMMAND --help` (the option tables of
# tuner/cmd/cli.h write both the parser and that text), and so are export's
# formats and search's strategies: a new option or command completes as
# soon as it is built, with no table here to keep in step. Each call costs
# one run of the program, a few milliseconds. Values: SPEC operands are
# *.cfg files, --db *.db, --csv and --replay *.csv, -o/--output and
# --files paths, --launcher the launchers.

# The sweetspot to ask: the one being completed when it can be run.
_sweetspot_prog()
{
	local p=${COMP_WORDS[0]}
	if [[ $p == */* && -x $p ]] || type -P "$p" >/dev/null 2>&1; then
		printf '%s\n' "$p"
	else
		printf 'sweetspot\n'
	fi
}

# The long options of a --help text's option lines ("  -o, --output DIR").
_sweetspot_options()
{
	"$1" "$2" --help 2>/dev/null |
		sed -n 's/^ \{1,8\}\(-[A-Za-z0-9], \)\{0,1\}\(--[a-z][a-z0-9-]*\).*/\2/p'
}

# COMPREPLY from files matching a glob, and folders to go into.
_sweetspot_files()
{
	local IFS=$'\n' f
	COMPREPLY=()
	for f in $(compgen -d -- "$cur"); do COMPREPLY+=("$f/"); done
	if [[ -n $1 ]]; then
		for f in $(compgen -f -X "!$1" -- "$cur"); do
			[[ -d $f ]] || COMPREPLY+=("$f")
		done
	fi
	compopt -o nospace 2>/dev/null
}

_sweetspot()
{
	local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]}
	local prog cmd i words
	prog=$(_sweetspot_prog)
	COMPREPLY=()

	# The command: the first word after the program that is not an option.
	for ((i = 1; i < COMP_CWORD; i++)); do
		if [[ ${COMP_WORDS[i]} != -* ]]; then
			cmd=${COMP_WORDS[i]}
			break
		fi
	done
	if [[ -z $cmd || $cmd == help && $COMP_CWORD -eq $((i + 1)) ]]; then
		if [[ $cur == -* && -z $cmd ]]; then
			words="--help --version"
		else
			words=$("$prog" --help 2>/dev/null | sed -n 's/^  \([a-z][a-z-]*\) .*/\1/p')
			[[ -z $cmd ]] && words="$words help"
		fi
		COMPREPLY=($(compgen -W "$words" -- "$cur"))
		return
	fi

	case $prev in
	--db)
		_sweetspot_files '*.db'; return ;;
	--csv | --replay)
		_sweetspot_files '*.csv'; return ;;
	--machine)
		_sweetspot_files '*.machine'; return ;;
	--profile | --records | --rules | --host-bin | --worker-bin | -o | --output | --files)
		_sweetspot_files '*'; return ;;
	--format)
		words=$("$prog" export --help 2>/dev/null |
			sed -n '/^Options:/q;s/^  \([a-z][a-z-]*\)  .*/\1/p')
		COMPREPLY=($(compgen -W "$words" -- "$cur")); return ;;
	--strategy)
		words=$("$prog" "$cmd" --help 2>/dev/null |
			sed -n 's/.*--strategy \([a-z|]*\).*/\1/p' | head -n 1 | tr '|' ' ')
		COMPREPLY=($(compgen -W "$words" -- "$cur")); return ;;
	--launcher)
		words="srun mpirun mpirun_rsh hydra"
		[[ $cmd == generate ]] && words="$words all"
		COMPREPLY=($(compgen -W "$words" -- "$cur")); return ;;
	--run | --budget | --chunks | --max-launches | --only | --layout | --collective | \
	--algorithms | --ompi-version | --replay-seed)
		return ;;	# a value only the user knows
	esac

	if [[ $cur == -* ]]; then
		COMPREPLY=($(compgen -W "$(_sweetspot_options "$prog" "$cmd")" -- "$cur"))
		return
	fi
	case $cmd in
	init | results) ;;
	*) _sweetspot_files '*.cfg' ;;
	esac
}

complete -F _sweetspot sweetspot
