# Figures of lesson 05 from the demo's CSV tables (make bench passes csvdir and outdir; with
# figures=1, as tools/notes/figures.sh runs it, the files are named h200_*.svg for the notes):
#   05-texture_versions.svg   the rotation four ways: GB/s and the share of the copy ceiling
# Columns: version, name, time, GB/s, % of copy, max abs err, err / bound.
# The Russian lecture gives no texture timings, so there is no historical series.
if (!exists("csvdir")) csvdir = 'build/bench'
if (!exists("outdir")) outdir = csvdir
out(s) = exists("figures") ? outdir.'/h200_'.s.'.svg' : outdir.'/05-texture_'.s.'.svg'

set datafile separator ','
set terminal svg size 640,360 dynamic noenhanced font 'sans,11' background rgb 'white'
set style data histograms
set style fill solid 0.8 border -1
set boxwidth 0.6
set grid ytics lc rgb '#dddddd'
set yrange [0:*]
set output out('versions')
set title '4096 × 4096 rotation by 30°, bilinear, wrap: 8 bytes per pixel'
set ylabel 'GB/s'
plot csvdir.'/05-texture_versions.csv' skip 1 using 4:xtic(sprintf('v%s %s', strcol(1), strcol(2))) \
     lc rgb '#1f77b4' notitle
