#!/usr/bin/env perl
# Two checks of the lecture notes' text (tests/notes/test_notes_words.sh):
#
# history  The notes are a student's text: they say what is measured and why, never how the
#          course was built. Words of that bookkeeping are refused in prose: goals met or not,
#          what a reference "was built to" reach, earlier sessions and references, variants
#          "left out". Code (fenced blocks, `spans`) and HTML comments are not prose and are
#          skipped, so a program's own output (`goal >= 0.98 x`) may be quoted. Technical uses
#          stay legal: "a cuda-gdb session", "a profiling session".
# dated    A table that quotes measurements on the H200 says which machine and which day: the
#          table's header or the lines just above it (its caption, up to $WINDOW lines, not past
#          a heading or another table) name the H200 and a date YYYY-MM-DD. Every table whose
#          header or caption names the H200 is taken for a measurement on it: a table that only
#          compares generations says "Hopper", not "H200".
#
#   notes_words.pl history|dated FILE...   prints FILE:LINE: RULE: the line, for every
#                                          finding; exit 1 if any, 2 on a usage error
use strict;
use warnings;

my $WINDOW = 8;

my @history = (
    [ 'goal',           qr/\bgoals?\b/i ],
    [ 'NOT met',        qr/\bNOT met\b/ ],
    [ 'built to',       qr/\b(?:was|were) built to\b/i ],
    [ 'built while',    qr/\bwhile (?:the|this|that) [\w-]+ (?:was|were) (?:built|written|tuned)\b/i ],
    [ 'earlier',        qr/\b(?:earlier|previous) (?:reference|session|layout|version of (?:this|the) course)\b/i ],
    [ 'session',        qr/(?<!cuda-gdb )(?<!gdb )(?<!debugging )(?<!profiling )(?<!nsys )\bsessions?\b/i ],
    [ 'left out',       qr/\band left out\b|\b(?:measured|tried) and (?:then )?left out\b/i ],
    [ 'gradings',       qr/\bgradings\b/i ],
);

# Prose of one line: fenced code and HTML comments are tracked across lines by the caller.
sub prose_lines {
    my ($file) = @_;
    open(my $fh, '<', $file) or die "notes_words.pl: cannot read $file: $!\n";
    my @out;
    my ($fence, $comment) = (0, 0);
    while (my $line = <$fh>) {
        chomp $line;
        my $prose = $line;
        if ($line =~ /^\s*(```|~~~)/) { $fence = !$fence; push @out, [ $line, '' ]; next; }
        if ($fence) { push @out, [ $line, '' ]; next; }
        if ($comment) {
            if ($prose =~ s/^.*?-->//) { $comment = 0; } else { push @out, [ $line, '' ]; next; }
        }
        $prose =~ s/<!--.*?-->//g;
        $comment = 1 if $prose =~ s/<!--.*$//;
        $prose =~ s/(`+).*?\1//g;
        push @out, [ $line, $prose ];
    }
    close $fh;
    return @out;
}

my $mode = shift @ARGV // '';
if (($mode ne 'history' && $mode ne 'dated') || !@ARGV) {
    print STDERR "usage: notes_words.pl history|dated FILE...\n";
    exit 2;
}

my $is_row   = qr/^\s*\|.*\|\s*$/;
my $is_sep   = qr/^\s*\|(?:\s*:?-+:?\s*\|)+\s*$/;
my $date     = qr/\b20\d\d-[01]\d-[0-3]\d\b/;

my $hits = 0;
for my $file (@ARGV) {
    my @lines = prose_lines($file);
    if ($mode eq 'history') {
        for my $i (0 .. $#lines) {
            for my $r (@history) {
                next unless $lines[$i][1] =~ $r->[1];
                print "$file:", $i + 1, ": $r->[0]: $lines[$i][0]\n";
                $hits++;
            }
        }
        next;
    }
    # dated: walk the tables (a header row followed by a separator row)
    my $fence = 0;
    for (my $i = 0; $i < $#lines; $i++) {
        my $raw = $lines[$i][0];
        if ($raw =~ /^\s*(```|~~~)/) { $fence = !$fence; next; }
        next if $fence;
        next unless $raw =~ $is_row && $lines[$i + 1][0] =~ $is_sep;
        next if $i > 0 && $lines[$i - 1][0] =~ $is_row;    # not the first row of its table
        my $end = $i + 2;
        $end++ while $end <= $#lines && $lines[$end][0] =~ $is_row;
        my @caption;
        for (my $k = $i - 1; $k >= 0 && $k >= $i - $WINDOW; $k--) {
            my $c = $lines[$k][0];
            last if $c =~ /^#/ || $c =~ $is_row;
            unshift @caption, $c;
        }
        my $context = join("\n", $raw, @caption);
        next unless $context =~ /H200/;
        next if $context =~ $date;
        print "$file:", $i + 1, ": undated: an H200 table with no date YYYY-MM-DD in its caption: $raw\n";
        $hits++;
        $i = $end - 1;
    }
}
exit($hits ? 1 : 0);
