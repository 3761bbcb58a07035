# bash completion of pperf: its commands, each command's options (as its --help lists them) and
# their values, convert's --to formats, profiles and other files. `make install` puts it in
# share/bash-completion/completions/pperf, where bash-completion finds it; without
# bash-completion, source it from ~/.bashrc. tests/e2e/install.sh checks it against --help.

_pperf_commands="record info dump list report diff convert merge help"
_pperf_formats="pperf1 perf csv collapsed speedscope trace pprof svg"
_pperf_backends="perf rapl file exec plugin dummy none"
_pperf_sort_keys="sym dso srcline pid tid comm"

# _pperf_options COMMAND: the options of COMMAND (convert-FORMAT: of convert --to FORMAT;
# upstream: of upstream's invocation, pperf [options] -- COMMAND)
_pperf_options()
{
	local common="-h --help --version"

	case $1 in
	record)
		echo "-o --output --no-output -F --freq -f --frequency -p --pid --duration" \
			"--no-inherit -e --event --pmu -g --call-graph --sampling -r --randomize" \
			"--core-isolation --fifo --rr -v --verbose -q --quiet $common" ;;
	upstream)
		echo "-o --output -p --pmu-arg -f --frequency -r --randomize --core-isolation" \
			"--fifo --rr -v --verbose $common" ;;
	info | dump) echo "-i --input $common" ;;
	list) echo "$common" ;;
	report)
		echo "-i --input -s --sort --wall --pid --tid --comm --time --inline --children" \
			"--no-children --percent-limit -n --show-nr-samples -g --call-graph" \
			"--callers --callees --weight --symfs --no-demangle --format --stdio --html" \
			"$common" ;;
	diff) echo "-s --sort --wall --symfs --no-demangle --format $common" ;;
	merge)
		echo "-o --output --clock --offset --time-unit --time-column --column --name" \
			"--unit --scale --kind $common" ;;
	convert) echo "-t --to $common" ;;
	convert-perf) echo "-i --input -o --output --wall --perf-unwind -f --force -v --verbose $common" ;;
	convert-pperf1) echo "-i --input -o --output $common" ;;
	convert-csv) echo "-i --input -o --output --symfs --no-lines --no-demangle $common" ;;
	convert-collapsed)
		echo "-i --input -o --output --weight --comm --inline --symfs --no-demangle $common" ;;
	convert-speedscope)
		echo "-i --input -o --output --weight --inline --symfs --no-demangle $common" ;;
	convert-trace) echo "-i --input -o --output --symfs --no-demangle $common" ;;
	convert-pprof) echo "-i --input -o --output --symfs --no-lines --no-demangle $common" ;;
	convert-svg)
		echo "-i --input -o --output --weight --inline --symfs --no-demangle $common" ;;
	esac
}

# _pperf_value COMMAND OPTION CUR: complete OPTION's value into COMPREPLY; 1 if OPTION takes none
_pperf_value()
{
	local cmd=$1 opt=$2 cur=$3

	case $cmd:$opt in
	*:-i | *:--input | *:-o | *:--output | report:--html)
		compopt -o filenames 2>/dev/null
		COMPREPLY=($(compgen -f -- "$cur")) ;;
	*:--symfs)
		compopt -o filenames 2>/dev/null
		COMPREPLY=($(compgen -d -- "$cur")) ;;
	convert:-t | convert:--to) COMPREPLY=($(compgen -W "$_pperf_formats" -- "$cur")) ;;
	record:-p | record:--pid)
		COMPREPLY=($(compgen -W "$(cd /proc && compgen -G '[0-9]*')" -- "$cur")) ;;
	upstream:-p | upstream:--pmu-arg | record:--pmu)
		COMPREPLY=($(compgen -W "$_pperf_backends" -- "$cur")) ;;
	record:--call-graph) COMPREPLY=($(compgen -W "fp dwarf" -- "$cur")) ;;
	record:--sampling) COMPREPLY=($(compgen -W "cpu snapshot" -- "$cur")) ;;
	report:-s | report:--sort | diff:-s | diff:--sort)
		# a comma-separated list: complete its last key
		local done=
		[[ $cur == *,* ]] && done=${cur%,*},
		COMPREPLY=($(compgen -P "$done" -W "$_pperf_sort_keys" -- "${cur##*,}"))
		compopt -o nospace 2>/dev/null ;;
	report:--weight | convert-collapsed:--weight | convert-speedscope:--weight | \
	convert-svg:--weight)
		COMPREPLY=($(compgen -W "cpu wall samples" -- "$cur")) ;;
	report:--format | diff:--format) COMPREPLY=($(compgen -W "stdio csv" -- "$cur")) ;;
	merge:--clock) COMPREPLY=($(compgen -W "auto realtime relative" -- "$cur")) ;;
	merge:--time-unit) COMPREPLY=($(compgen -W "s ms us ns" -- "$cur")) ;;
	merge:--kind) COMPREPLY=($(compgen -W "instant counter" -- "$cur")) ;;
	record:-[Ffe] | record:--freq | record:--frequency | record:--duration | \
	record:--event | record:--fifo | record:--rr | upstream:-f | upstream:--frequency | \
	upstream:--fifo | upstream:--rr | report:--pid | report:--tid | report:--comm | \
	report:--time | report:--percent-limit | report:--callers | report:--callees | \
	merge:--offset | merge:--time-column | merge:--column | merge:--name | merge:--unit | \
	merge:--scale)
		;; # a number or a name: nothing to offer
	*) return 1 ;;
	esac
	return 0
}

_pperf()
{
	local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD - 1]}
	local cmd i w

	COMPREPLY=()
	# --opt=VALUE: bash splits the word at '='
	if [[ $cur == = ]]; then
		cur=
	elif [[ $prev == = ]] && ((COMP_CWORD > 2)); then
		prev=${COMP_WORDS[COMP_CWORD - 2]}
	elif [[ $cur == --*=* ]]; then
		prev=${cur%%=*} cur=${cur#*=}
	fi

	if ((COMP_CWORD == 1)) && [[ $cur != -* ]]; then
		COMPREPLY=($(compgen -W "$_pperf_commands" -- "$cur"))
		return 0
	fi
	cmd=${COMP_WORDS[1]}
	[[ $cmd == -* ]] && cmd=upstream
	# After "--": the program to record and its arguments.
	for ((i = 1; i < COMP_CWORD; i++)); do
		[[ ${COMP_WORDS[i]} == -- ]] || continue
		if declare -F _command_offset >/dev/null; then
			_command_offset $((i + 1))
		elif ((COMP_CWORD == i + 1)); then
			COMPREPLY=($(compgen -c -- "$cur"))
		else
			compopt -o filenames 2>/dev/null
			COMPREPLY=($(compgen -f -- "$cur"))
		fi
		return 0
	done
	case $cmd in
	help)
		((COMP_CWORD == 2)) && COMPREPLY=($(compgen -W "${_pperf_commands% help}" -- "$cur"))
		return 0 ;;
	convert)
		# the options are the format's once --to has named one
		for ((i = 2; i < COMP_CWORD; i++)); do
			w=${COMP_WORDS[i]}
			if [[ $w == -t || $w == --to ]] && ((i + 1 < COMP_CWORD)); then
				[[ ${COMP_WORDS[i + 1]} == = ]] && ((i++))
				((i + 1 < COMP_CWORD)) && cmd=convert-${COMP_WORDS[i + 1]}
			elif [[ $w == --to=* ]]; then
				cmd=convert-${w#--to=}
			fi
		done
		# convert --to's value, whichever target is named
		[[ $prev == -t || $prev == --to ]] && { _pperf_value convert "$prev" "$cur"; return 0; }
		;;
	esac
	_pperf_value "$cmd" "$prev" "$cur" && return 0
	if [[ $cur == -* ]]; then
		COMPREPLY=($(compgen -W "$(_pperf_options "$cmd")" -- "$cur"))
		return 0
	fi
	case $cmd in
	list) COMPREPLY=($(compgen -W "$_pperf_backends" -- "$cur")) ;;
	report)
		# -g takes its value as the next word too (as perf's), or a profile follows
		if [[ $prev == -g ]]; then
			COMPREPLY=($(compgen -W "caller callee" -- "$cur"))
		fi
		compopt -o filenames 2>/dev/null
		COMPREPLY+=($(compgen -f -- "$cur")) ;;
	info | dump | diff | merge)
		compopt -o filenames 2>/dev/null
		COMPREPLY=($(compgen -f -- "$cur")) ;;
	record | upstream) ;; # options, then -- COMMAND
	esac
	return 0
}
complete -F _pperf pperf
