# Figures of lesson 02 from the demo's CSV tables (make bench passes csvdir and outdir; with
# figures=1, as tools/notes/figures.sh runs it, the files are named h200_*.svg for the notes):
#   02-memory-spaces_offset.svg   offsetCopy bandwidth against the offset in floats
#   02-memory-spaces_stride.svg   strideCopy effective bandwidth against the stride in floats
# Columns of both tables: offset|stride, ms, GB/s, % of copy.
if (!exists("csvdir")) csvdir = 'build/bench'
if (!exists("outdir")) outdir = csvdir
out(s) = exists("figures") ? outdir."/h200_".s.".svg" : outdir."/02-memory-spaces_".s.".svg"

set datafile separator ','
set terminal svg size 720,420 dynamic font 'sans,11'
set grid ytics lc rgb '#dddddd'
set ylabel 'bandwidth (GB/s, read + written)'
set y2label '% of the device-to-device copy ceiling'
set ytics nomirror
set y2tics 10 format '%.0f%%'
set yrange [0:*]
set offsets 0, 0, graph 0.08, 0
set style line 1 lc rgb '#1f77b4' lw 2 pt 7 ps 0.6

# The right axis is the left one rescaled by the copy ceiling of the same run, which every row
# carries implicitly: ceiling = GB/s * 100 / (% of copy).
stats csvdir.'/02-memory-spaces_offset.csv' skip 1 using ($3 * 100 / $4) name 'CEIL' nooutput
set link y2 via y * 100 / CEIL_mean inverse y * CEIL_mean / 100

set output out('offset')
set title 'offsetCopy: a warp copies 32 floats that start offset floats past a 128-byte line'
set xlabel 'offset (floats)'
set xrange [0:32]
set xtics 4
plot csvdir.'/02-memory-spaces_offset.csv' skip 1 using 1:3 with linespoints ls 1 notitle

set output out('stride')
set title 'strideCopy: a warp copies 32 floats, stride floats apart (bytes asked for)'
set xlabel 'stride (floats)'
set xrange [1:32]
set xtics 1,2
plot csvdir.'/02-memory-spaces_stride.csv' skip 1 using 1:3 with linespoints ls 1 notitle
