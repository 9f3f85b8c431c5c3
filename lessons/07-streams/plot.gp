# Figures of lesson 07 from the demo's CSV tables (make bench passes csvdir and outdir; with
# figures=1, as tools/notes/figures.sh runs it, the files are named h200_*.svg for the notes):
#   07-streams_streams.svg         the Spanish lecture's overloaded vectorAdd: time against the
#                                  number of streams, with the lecture's venus (cc 6.1) inline
#   07-streams_task_pipeline.svg   the task's schedule: time against the number of chunks
# (07-streams_timeline.svg is written by the demo itself.)
if (!exists("csvdir")) csvdir = "build/bench"
if (!exists("outdir")) outdir = csvdir
out(s) = exists("figures") ? outdir."/h200_".s.".svg" : outdir."/07-streams_".s.".svg"

set datafile separator ","
set terminal svg size 960,600 dynamic noenhanced font "sans,12" background rgb "white"
set logscale x 2
set grid ytics lc rgb "#dddddd"
set key outside right top
set ylabel "ms (median)"
set yrange [0:*]

streams = csvdir."/07-streams_streams.csv"
# rows with streams > 0 are the stream schedules; the others are the two sequential baselines
with_streams = sprintf("< awk -F, 'NR > 1 && $2 > 0' '%s'", streams)
baseline(k) = real(system(sprintf("awk -F, 'NR > 1 && $2 == 0 { n++; if (n == %d) print $3 }' '%s'", k, streams)))
set output out("streams")
# The lecture's venus (cc 6.1), n = 1e8: the first, best and last stream counts it reports
$venus << EOD
1,88
16,74
128,77
EOD
set title "Lesson 07: vectorAdd with overload, n = 1e8 (the lecture's venus: 210 ms without streams)"
set xlabel "streams"
plot with_streams using 2:3 with linespoints lw 2 pt 7 title "streams + pinned + async", \
     with_streams using 2:5 with linespoints lw 1 pt 1 title "overlap bound", \
     baseline(1) with lines lw 1 title "no streams, pageable", \
     baseline(2) with lines lw 1 title "no streams, pinned", \
     $venus using 1:2 with linespoints lw 2 dt 2 pt 6 lc rgb "#7f7f7f" title "lecture, venus (cc 6.1)"

task = csvdir."/07-streams_task_pipeline.csv"
chunked = sprintf("< awk -F, 'NR > 1 && $2 > 1' '%s'", task)
sequential = real(system(sprintf("awk -F, 'NR == 2 { print $3 }' '%s'", task)))
set output out("task_pipeline")
set title "Lesson 07: the task's pipeline, 4 streams, against the sequential version"
set xlabel "chunks"
plot chunked using 2:3 with linespoints lw 2 pt 7 title "4 streams", \
     chunked using 2:($3 * $6 / 100) with linespoints lw 1 pt 1 title "overlap bound", \
     sequential with lines lw 1 title "sequential"
