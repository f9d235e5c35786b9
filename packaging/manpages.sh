#!/bin/sh
# Writes the man pages of steward, steward-cli and every steward-cli command into OUTDIR as
# gzip'd roff, made from the programs' own --help output at build time so a page cannot say
# something the program's help does not. The commands are the ones steward-cli --help lists under
# "Commands", so a new command gets its page without touching this script; a command whose
# --help fails breaks the build.
#
# Usage: manpages.sh STEWARD_CLI STEWARD OUTDIR VERSION
set -eu

cli=$1
app=$2
out=$3
version=$4

mkdir -p "$out"
rm -f "$out"/*.1 "$out"/*.1.gz

# Run both through PATH so the help's "Usage:" lines name the program, not the build path.
PATH="$(dirname "$cli"):$(dirname "$app"):$PATH"
export PATH
# steward answers --help without a display; offscreen keeps it quiet should that ever change.
QT_QPA_PLATFORM=offscreen
export QT_QPA_PLATFORM

# roff PAGE SUMMARY SEEALSO < help text > page
# The help text is kept line for line in no-fill blocks, so its columns survive; "Usage:" becomes
# SYNOPSIS, "Options:"/"Commands ...:" their own sections, "Example..." goes to EXAMPLES at the end.
roff()
{
    awk -v page="$1" -v summary="$2" -v seealso="$3" -v version="$version" '
    function esc(s) {
        gsub(/\\/, "\\\\e", s)
        gsub(/-/, "\\\\-", s)
        if (s ~ /^[.\047]/)
            s = "\\&" s
        return s
    }
    function open(title) {
        if (inblock)
            print ".fi"
        print ".SH " title
        print ".nf"
        inblock = 1
        pending = ""
        blanks = 0
    }
    # Blank lines are kept between lines of a section, not at its ends; a section with no
    # lines gets no heading.
    function emit(s) {
        if (s == "") {
            if (inblock && pending == "")
                ++blanks
            return
        }
        if (pending != "")
            open(pending)
        for (; blanks > 0; --blanks)
            print ""
        print esc(s)
    }
    BEGIN {
        print ".\\\" Generated from the --help output by packaging/manpages.sh; do not edit."
        print ".TH " toupper(page) " 1 \"\" \"Steward " version "\" \"Steward Manual\""
        print ".SH NAME"
        print esc(page) " \\- " esc(summary)
        section = ""
    }
    # Usage: and the lines that continue it (indented, up to the first blank line).
    NR == 1 && /^Usage: / {
        open("SYNOPSIS")
        sub(/^Usage: /, "")
        emit($0)
        section = "synopsis"
        next
    }
    section == "synopsis" && /^ / {
        emit(substr($0, 8))
        next
    }
    /^Options:$/ { open("OPTIONS"); section = "options"; next }
    /^Commands/ { open("COMMANDS"); section = "commands"; next }
    /^Example/ {
        section = "example"
        line = $0
        sub(/^Examples?:? */, "", line)
        if (line != "")
            example[++examples] = line
        next
    }
    section == "example" && /^ / {
        line = $0
        sub(/^ +/, "", line)
        example[++examples] = line
        next
    }
    section == "example" && /^$/ { next }
    section == "" || section == "synopsis" || section == "example" {
        section = "description"
        pending = "DESCRIPTION"
    }
    { emit($0) }
    END {
        if (examples > 0) {
            open("EXAMPLES")
            for (i = 1; i <= examples; ++i)
                print esc(example[i])
        }
        if (inblock)
            print ".fi"
        if (seealso != "") {
            print ".SH SEE ALSO"
            print esc(seealso)
        }
    }'
}

cli_help=$(steward-cli --help)
# "  requests [FILE|-]   answer one JSON request ..." -> "requests<TAB>answer one JSON request ..."
commands=$(printf '%s\n' "$cli_help" | awk '
    /^Commands/ { on = 1; next }
    on && /^$/ { on = 0 }
    on && /^  [a-z]/ {
        line = substr($0, 3)
        name = line
        sub(/ .*/, "", name)
        match(line, /   *[^ ]/)
        print name "\t" substr(line, RSTART + RLENGTH - 1)
    }')
if [ -z "$commands" ]; then
    echo "manpages.sh: steward-cli --help lists no commands" >&2
    exit 1
fi

pages=""
tab=$(printf '\t')
while IFS="$tab" read -r command summary; do
    pages="$pages${pages:+, }steward-cli-$command(1)"
    steward-cli "$command" --help >"$out/help.txt"
    roff "steward-cli-$command" "$summary" "steward-cli(1), steward(1)" \
        <"$out/help.txt" >"$out/steward-cli-$command.1"
done <<EOF
$commands
EOF

printf '%s\n' "$cli_help" | roff steward-cli \
    "Ed-Fi data as JSON documents in SQLite, from the command line" "steward(1), $pages" \
    >"$out/steward-cli.1"

steward --help >"$out/help.txt"
roff steward "offline Ed-Fi data stewardship (the desktop app)" "steward-cli(1)" \
    <"$out/help.txt" >"$out/steward.1"
rm -f "$out/help.txt"

# Debian installs man pages compressed; -n keeps the bytes the same from build to build.
gzip -9n "$out"/*.1
