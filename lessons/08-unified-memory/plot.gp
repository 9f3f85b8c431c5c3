# Figures of lesson 08 from the demo's CSV tables (make bench passes csvdir and outdir; with
# figures=1, as tools/notes/figures.sh runs it, the files are named h200_*.svg for the notes):
#   08-unified-memory_managed.svg   c = a + b at n = 1e8: explicit copies against managed memory,
#                                   on this GPU, beside the Spanish lecture's venus (cc 6.1, inline)
# Columns of vector_add: method, ms, vs pageable copies, link GB/s, % of h2d ceiling.
if (!exists("csvdir")) csvdir = 'build/bench'
if (!exists("outdir")) outdir = csvdir
out(s) = exists("figures") ? outdir.'/h200_'.s.'.svg' : outdir.'/08-unified-memory_'.s.'.svg'

set datafile separator ','
set terminal svg size 720,400 dynamic noenhanced font 'sans,11' background rgb 'white'
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.8 border -1
set grid ytics lc rgb '#dddddd'
set logscale y
set yrange [10:*]
set key top left
# labels end at their bar and run down to the left, so that the last, longest one stays inside;
# the left margin makes room for the first
set xtics rotate by 20 right
set lmargin 22
set rmargin 4
# The lecture's venus (cc 6.1), overloaded vectorAdd at n = 1e8, ms, in the rows' order:
# pageable copies (no streams), pinned copies (streams, best), UMA on demand, no prefetch figure
# (nor any for the discard row the demo adds after it).
$venus << EOD
210
74
1775
NaN
EOD
set output out('managed')
set title 'n = 1e8: explicit copies against managed memory (ms, log scale)'
set ylabel 'ms per call'
plot csvdir.'/08-unified-memory_vector_add.csv' skip 1 using 2:xtic(1) lc rgb '#1f77b4' title 'this GPU, c = a + b', \
     $venus using 1 lc rgb '#7f7f7f' title 'lecture, venus (cc 6.1), overloaded kernel'
