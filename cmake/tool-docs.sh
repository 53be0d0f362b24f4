#!/usr/bin/env bash
# tool-docs.sh TOOL NAME SUMMARY MAN_OUT COMPLETION_OUT
# The man page and the bash completion of one tool, both from what the tool
# itself prints (its --help is made from its table of options, so nothing
# here lists an option): the man page by help2man from --help and
# --version; for sprof, a section per report from `sprof help NAME`.
set -euo pipefail
tool=$1 name=$2 summary=$3 man_out=$4 completion_out=$5
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

"$tool" --help > "$work/help"
if [ "$name" = sprof ]; then
    # The reports' names, as --help ends: "(NAME: flat, lines, …)."
    tr '\n' ' ' < "$work/help" | sed -n 's/.*(NAME: \([^)]*\)).*/\1/p' | tr -d ' ' | tr ',' '\n' > "$work/reports"
    [ -s "$work/reports" ] || { echo "tool-docs.sh: no report names in sprof --help" >&2; exit 1; }
    {
        echo "[REPORTS AND OUTPUTS]"
        while read -r report; do
            echo ".SS $report"
            echo ".nf"
            "$tool" help "$report" | sed 's/\\/\\e/g; s/^\./\\\&./'
            echo ".fi"
            "$tool" help "$report" >> "$work/help"
        done < "$work/reports"
    } > "$work/include"
else
    : > "$work/include"
fi

include=()
[ -s "$work/include" ] && include=(--include="$work/include")
# help2man makes the SYNOPSIS of a "Usage:" line and the "or:" lines under
# it; the tools say "usage:" and align the other forms under it, as git does.
mkdir "$work/shim"
printf '#!/bin/sh\n"%s" "$@" | sed -e "s/^usage: /Usage: /" -e "s/^       %s /   or: %s /"\n' "$tool" "$name" "$name" \
    > "$work/shim/$name"
chmod +x "$work/shim/$name"
help2man --no-info --no-discard-stderr --name="$summary" "${include[@]}" --output="$man_out.tmp" "$work/shim/$name"
mv "$man_out.tmp" "$man_out"

# Every option the help names, and those that take a value ("--output FILE",
# "-o, --output FILE"), whose value is a file name or free text.
# The left column of each option line: "-o, --output FILE".
(grep -E '^ +-' "$work/help" || true) | sed -E 's/^ +//; s/  .*//' > "$work/option-lines"
options=$( (grep -oE -- '(^|[ ,])--?[A-Za-z][-A-Za-z0-9+]*' "$work/option-lines" || true) | sed 's/^[ ,]*//' |
          sort -u | tr '\n' ' ')
valued=$( (grep -oE -- '(-[A-Za-z], )?--[A-Za-z][-A-Za-z0-9]* [^ -]' "$work/option-lines" || true) |
         sed 's/ [^ ]$//; s/, / /' | tr ' ' '\n' | sort -u | tr '\n' ' ')
fn=_$(echo "$name" | tr -c 'A-Za-z0-9_\n' _)
if [ "$name" = sprof ]; then
    first_words="top help"   # sprof top PROFILE, sprof help NAME
    rest='COMPREPLY=($(compgen -f -- "$cur")); [ "$COMP_CWORD" -eq 1 ] && COMPREPLY+=($(compgen -W "'"$first_words"'" -- "$cur"))'
else
    # Up to the program: options; the program: a command; after it: its own arguments (files).
    rest='local i; for ((i = 1; i < COMP_CWORD; i++)); do
        case ${COMP_WORDS[i]} in
            -*) ;;
            *) case " $valued " in *" ${COMP_WORDS[i-1]} "*) ;; *) COMPREPLY=($(compgen -f -- "$cur")); return ;; esac ;;
        esac
    done
    COMPREPLY=($(compgen -c -- "$cur"))'
fi
cat > "$completion_out" <<COMPLETION
# bash completion for $name, generated from its --help at build time.
$fn() {
    local cur=\${COMP_WORDS[COMP_CWORD]} prev=\${COMP_WORDS[COMP_CWORD-1]}
    local valued=" $valued"
    if [[ \$cur == -* ]]; then
        COMPREPLY=(\$(compgen -W "$options" -- "\$cur"))
        return
    fi
    case "\$valued " in *" \$prev "*) COMPREPLY=(\$(compgen -f -- "\$cur")); return ;; esac
    $rest
}
complete -o default -F $fn $name
COMPLETION
