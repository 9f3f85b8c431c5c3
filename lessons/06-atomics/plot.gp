# Figures of lesson 06 from the demo's CSV tables (make bench passes csvdir and outdir; with
# figures=1, as tools/notes/figures.sh runs it, the files are named h200_*.svg for the notes):
#   06-atomics_histogram.svg   every histogram version on uniform and single-bin input
# Columns: input, version, name, time, GB/s, % of copy, vs global, correct.
# The Russian lecture gives no timings for atomics, so there is no historical series.
if (!exists("csvdir")) csvdir = 'build/bench'
if (!exists("outdir")) outdir = csvdir
out(s) = exists("figures") ? outdir.'/h200_'.s.'.svg' : outdir.'/06-atomics_'.s.'.svg'

set datafile separator ','
set terminal svg size 720,400 dynamic noenhanced font 'sans,11' background rgb 'white'
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.8 border -1
set grid ytics lc rgb '#dddddd'
set logscale y
set yrange [0.5:*]
set key top left
f = csvdir.'/06-atomics_histogram.csv'
input(s) = sprintf("< awk -F, 'NR > 1 && $1 == \"%s\"' '%s'", s, f)
set output out('histogram')
set title '256-bin histogram of 256 MiB (log scale)'
set ylabel 'GB/s of input'
plot input('uniform') using 5:xtic(sprintf('v%s %s', strcol(2), strcol(3))) lc rgb '#1f77b4' title 'uniform bytes', \
     input('one bin') using 5 lc rgb '#d95f02' title 'every byte in one bin'
