#!/usr/bin/env perl
# Words the lecture notes must not use in their prose (tests/notes/test_notes.sh):
#   the course's own working vocabulary ("seed" for a source lecture, "issue", "target") has
#   no meaning for a student. Code (fenced blocks, `spans`) and HTML comments are not prose and
#   are skipped, so `--seed` and a program's own output stay legal. Technical uses stay legal
#   too: "issue an instruction", "the issue order", "a random seed", "the target of a prefetch",
#   "threads that target the same address".
#   forbidden.pl FILE...   prints FILE:LINE: WORD: the line, for every hit; exit 1 if any
use strict;
use warnings;

my @rules = (
    [ 'seed',   qr/(?<!random )\bseeds?(?:'s?)?\b/i ],
    [ 'issue',  qr/\b(?:the|this|that|an|open|github)\s+issues?\b(?!\s+(?:order|slot|rate|width|queue|port|stage))|\bissue(?:'s|s')/i ],
    [ 'target', qr/\btargets?\b(?!\s+(?:the\s+same|of\s+an?\b))/i ],
);
my $hits = 0;
for my $file (@ARGV) {
    open(my $fh, '<', $file) or die "forbidden.pl: cannot read $file: $!\n";
    my ($fence, $comment) = (0, 0);
    while (my $line = <$fh>) {
        chomp $line;
        if ($line =~ /^\s*(```|~~~)/) { $fence = !$fence; next; }
        next if $fence;
        my $prose = $line;
        if ($comment) {
            next unless $prose =~ s/^.*?-->//;
            $comment = 0;
        }
        $prose =~ s/<!--.*?-->//g;
        $comment = 1 if $prose =~ s/<!--.*$//;
        $prose =~ s/(`+).*?\1//g;
        for my $r (@rules) {
            next unless $prose =~ $r->[1];
            print "$file:$.: $r->[0]: $line\n";
            $hits++;
        }
    }
    close $fh;
}
exit($hits ? 1 : 0);
