# What every tool offers a user besides its work: --version (the project's
# version and the git revision built, as git itself names it), a man page
# and a bash completion generated from the tool's own table of options (every
# option --help lists is in the rendered page and offered by the completion),
# and -q, which silences the notes but not the errors.
source "$(dirname "$0")/common.sh" "$1"
SRC=$(cd "$HERE/../.." && pwd)
MAN=$BUILD/share/man/man1
COMPLETIONS=$BUILD/share/bash-completion/completions
[ -d "$MAN" ] || { echo "skipped: no man pages built (help2man missing at configure time)"; exit 77; }
tools="sprof sprof_lib sprof_pt preprof"
[ -x "$BIN/sprof-cc" ] && tools="$tools sprof-cc sprof-c++"

# The version: CMakeLists.txt's, and `git describe` of the checkout when it is one.
version=$(sed -n 's/^project(sprof VERSION \([0-9.]*\).*/\1/p' "$SRC/CMakeLists.txt")
want="$version"
if [ "$(git -C "$SRC" rev-parse --show-toplevel 2> /dev/null)" = "$SRC" ]; then
    want="$version (git $(git -C "$SRC" describe --always --tags))"
fi
for tool in $tools; do
    got=$("$BIN/$tool" --version | sed -n 1p)
    case $got in "$tool $want"*) ;; *) fail "$tool --version: '$got', not '$tool $want'" ;; esac
done
pass "--version of every tool: $want"

# The options a tool's help lists in its option column (sprof: its reports'
# own help too): "  -o, --output FILE   help…" gives -o and --output.
options_of() {
    { "$BIN/$1" --help
      if [ "$1" = sprof ]; then
          for r in $("$BIN/sprof" --help | tr '\n' ' ' | sed -n 's/.*(NAME: \([^)]*\)).*/\1/p' | tr -d ,); do
              "$BIN/sprof" help "$r"
          done
      fi
    } | awk '/^ +-/ { sub(/^ +/, ""); sub(/  .*/, ""); print }' | tr ', ' '\n\n' | grep -E '^--?[A-Za-z]' |
        sed -E 's/[=[].*//' | sort -u
}

render() {  # the man page as a reader sees it
    if command -v man > /dev/null; then MANWIDTH=120 man -l "$1" 2> /dev/null | col -b
    else groff -man -Tascii "$1" 2> /dev/null | col -b; fi
}

for tool in $tools; do
    page=$MAN/$tool.1
    [ -s "$page" ] || fail "no man page for $tool"
    render "$page" > "$tool.txt"
    for section in NAME SYNOPSIS DESCRIPTION; do
        grep -q "^$section" "$tool.txt" || fail "$tool.1 has no $section section"
    done
    options_of "$tool" > "$tool.options"
    [ "$(wc -l < "$tool.options")" -ge 4 ] || fail "$tool --help lists only $(wc -l < "$tool.options") options"
    while read -r option; do
        grep -qF -- "$option" "$tool.txt" || fail "$tool.1 does not list $option"
    done < "$tool.options"
    # The completion, as bash calls it after `TOOL -<TAB>`.
    offered=$(bash -c '
        source "$1"
        COMP_WORDS=("$2" -); COMP_CWORD=1
        fn=$(complete -p "$2" | sed "s/.*-F \([^ ]*\) .*/\1/")
        "$fn" "$2" - "$2"
        printf "%s\n" "${COMPREPLY[@]}"' completion "$COMPLETIONS/$tool" "$tool" | sort -u)
    missing=$(comm -23 "$tool.options" <(echo "$offered"))
    [ -z "$missing" ] || fail "the completion of $tool does not offer: $missing"
    pass "$tool: the man page renders and lists its $(wc -l < "$tool.options") options; the completion offers them"
done

# The completion of a collector: after the program, the program's own
# arguments are files, not sprof_lib's options.
touch some-file
got=$(bash -c 'source "$1"; COMP_WORDS=(sprof_lib -o x.sprof ./prog some-f); COMP_CWORD=4; _sprof_lib; echo "${COMPREPLY[*]}"' \
      c "$COMPLETIONS/sprof_lib")
[ "$got" = some-file ] || fail "sprof_lib's completion after the program offered '$got'"
got=$(bash -c 'source "$1"; COMP_WORDS=(sprof top); COMP_CWORD=1; _sprof; echo "${COMPREPLY[*]}"' c "$COMPLETIONS/sprof")
[ "$got" = top ] || fail "sprof's completion of 'top' offered '$got'"
pass "completion: a program's own arguments are files; sprof top"

# -q: the note on the default events (no hardware PMU here) goes, errors stay.
"$BIN/sprof_lib" -o noted.sprof true 2> noted.err
if [ -s noted.err ]; then
    grep -q "sprof_lib: " noted.err || fail "unexpected note: $(cat noted.err)"
    "$BIN/sprof_lib" -q -o quiet.sprof true 2> quiet.err
    [ ! -s quiet.err ] || fail "sprof_lib -q still said: $(cat quiet.err)"
    [ -s quiet.sprof ] || fail "sprof_lib -q wrote no profile"
    "$BIN/sprof_pt" -q -o quiet-pt.sprof true 2> quiet.err
    [ ! -s quiet.err ] || fail "sprof_pt -q still said: $(cat quiet.err)"
    pass "-q silences '$(cat noted.err)'"
else
    echo "note: the default events need no note on this machine; -q has nothing to silence in the collectors"
fi
set +e
"$BIN/sprof_lib" -q -e no-such-event true 2> err.txt
rc=$?
set -e
[ $rc = 2 ] && grep -q no-such-event err.txt || fail "sprof_lib -q hid an error (exit $rc): $(cat err.txt)"
# sprof: a profile cut short is read with a warning; -q drops it.
"$BIN/sprof_lib" -e task-clock -o whole.sprof "$WORK/alternate" -t 0.3 -m 20 -o truth.txt
head -c $(($(stat -c %s whole.sprof) - 7)) whole.sprof > cut.sprof
"$BIN/sprof" cut.sprof > /dev/null 2> warned.err
grep -q "sprof: warning: " warned.err || fail "a cut profile gave no warning: $(cat warned.err)"
"$BIN/sprof" -q cut.sprof > report.txt 2> quiet.err
[ ! -s quiet.err ] && grep -q heavy report.txt || fail "sprof -q: '$(cat quiet.err)', report $(head -3 report.txt)"
pass "-q keeps errors, drops sprof's warnings ('$(head -1 warned.err)')"
