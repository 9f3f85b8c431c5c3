# Figures of lesson 04 from the demo's CSV tables (make bench passes csvdir and outdir):
#   04-tiling_ladder.svg    GFLOP/s of every version against the matrix size
#   04-tiling_seed001.svg   seed 001's panel product C (n x n) = A (n x 32) * B (32 x n)
if (!exists("csvdir")) csvdir = "build/bench"
if (!exists("outdir")) outdir = csvdir

set datafile separator ","
set terminal svg size 960,600 dynamic noenhanced font "sans,12" background rgb "white"
# one distinct colour per version id (v0, cuBLAS, in black): line type v+1
array colours[13] = ["#000000", "#1b9e77", "#66a61e", "#e6ab02", "#a6761d", "#7570b3", \
                     "#999999", "#d95f02", "#1f78b4", "#e31a1c", "#6a3d9a", "#b15928", "#e7298a"]
do for [i = 1:13] { set linetype i lc rgb colours[i] lw 2 pt 7 ps 0.6 }
set logscale x 2
set grid ytics lc rgb "#dddddd"
set key outside right top
set ylabel "GFLOP/s (FP32)"

# rows_of(file, v): the rows of version v only (the tables list every version per size)
rows_of(file, v) = sprintf("< awk -F, 'NR > 1 && $1 == %s' '%s'", v, file)
name_of(file, v) = system(sprintf("awk -F, 'NR > 1 && $1 == %s { print $2; exit }' '%s'", v, file))
ids_of(file) = system(sprintf("awk -F, 'NR > 1 { print $1 }' '%s' | sort -n | uniq | tr '\\n' ' '", file))

ladder = csvdir."/04-tiling_ladder.csv"
set output outdir."/04-tiling_ladder.svg"
set title "Lesson 04: the ladder, C = A·B with M = N = K = n"
set xlabel "n"
plot for [v in ids_of(ladder)] rows_of(ladder, v) using 3:5 with linespoints lt (v + 1) \
     title sprintf("v%s %s", v, name_of(ladder, v))

panel = csvdir."/04-tiling_seed001.csv"
set output outdir."/04-tiling_seed001.svg"
set title "Lesson 04: seed 001's panel product, C (n x n) = A (n x 32) · B (32 x n)"
set xlabel "n"
plot for [v in ids_of(panel)] rows_of(panel, v) using 3:5 with linespoints lt (v + 1) \
     title sprintf("v%s %s", v, name_of(panel, v))
