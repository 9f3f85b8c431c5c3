# Figures of lesson 01 from the demo's CSV tables (make bench passes csvdir and outdir; with
# figures=1, as tools/notes/figures.sh runs it, the files are named h200_*.svg for the notes):
#   01-divergence_<group>.svg   each group's versions as bars: speed-up over the group's slowest
# Columns: version, name, time, rate, unit, % of ceiling, ceiling, x slowest, check.
# The lectures give no measured figure for divergence, so there is no historical series.
if (!exists("csvdir")) csvdir = 'build/bench'
if (!exists("outdir")) outdir = csvdir
out(s) = exists("figures") ? outdir.'/h200_'.s.'.svg' : outdir.'/01-divergence_'.s.'.svg'

set datafile separator ','
set terminal svg size 640,360 dynamic noenhanced font 'sans,11' background rgb 'white'
set style data histograms
set style fill solid 0.8 border -1
set boxwidth 0.6
set grid ytics lc rgb '#dddddd'
set yrange [0:*]
set ylabel "speed-up over the group's slowest version"
do for [g in 'branch reduce unroll inline library'] {
    f = csvdir.'/01-divergence_'.g.'.csv'
    if (system("test -r '".f."' && echo y") eq 'y') {
        set output out(g)
        set title 'Lesson 01, '.g.': the same work, faster versions to the right'
        plot f skip 1 using 8:xtic(sprintf('v%s %s', strcol(1), strcol(2))) lc rgb '#1f77b4' notitle
    }
}
