# Figures of lesson 04 from the demo's CSV tables (make bench passes csvdir and outdir; with
# figures=1, as tools/notes/figures.sh runs it, the files are named h200_*.svg for the notes):
#   04-tiling_ladder.svg   GFLOP/s of every version against the matrix size
#   04-tiling_panel.svg    the Spanish lecture's panel product C (n x n) = A (n x 32) * B (32 x n):
#                          its cc 6.1 times (inline below) beside today's
#   04-tiling_blocks.svg   Muld at 1024², GFLOP/s against blocks per SM: G80 (the Russian
#                          lecture, inline below) beside today's
if (!exists("csvdir")) csvdir = "build/bench"
if (!exists("outdir")) outdir = csvdir
out(s) = exists("figures") ? outdir."/h200_".s.".svg" : outdir."/04-tiling_".s.".svg"

set datafile separator ","
set terminal svg size 960,600 dynamic noenhanced font "sans,12" background rgb "white"
# one distinct colour per version id (v0, cuBLAS, in black): line type v+1
array colours[15] = ["#000000", "#1b9e77", "#66a61e", "#e6ab02", "#a6761d", "#7570b3", \
                     "#999999", "#d95f02", "#1f78b4", "#e31a1c", "#6a3d9a", "#b15928", "#e7298a", \
                     "#17becf", "#000080"]
do for [i = 1:15] { set linetype i lc rgb colours[i] lw 2 pt 7 ps 0.6 }
set logscale x 2
set grid ytics lc rgb "#dddddd"
set key outside right top

# rows_of(file, v): the rows of version v only (the tables list every version per size)
rows_of(file, v) = sprintf("< awk -F, 'NR > 1 && $1 == %s' '%s'", v, file)
name_of(file, v) = system(sprintf("awk -F, 'NR > 1 && $1 == %s { print $2; exit }' '%s'", v, file))
ids_of(file) = system(sprintf("awk -F, 'NR > 1 { print $1 }' '%s' | sort -n | uniq | tr '\\n' ' '", file))
readable(file) = system("test -r '".file."' && echo y") eq "y"

ladder = csvdir."/04-tiling_ladder.csv"
set output out("ladder")
set title "Lesson 04: the ladder, C = A·B with M = N = K = n"
set xlabel "n"
set ylabel "GFLOP/s (FP32)"
plot for [v in ids_of(ladder)] rows_of(ladder, v) using 3:5 with linespoints lt (v + 1) \
     title sprintf("v%s %s", v, name_of(ladder, v))

# The Spanish lecture's table (cc 6.1 GPU, ms per call): n, simple, coalesced, sharedAB
$hist001 << EOD
512,0.219,0.129,0.078
1024,0.546,0.386,0.251
2048,1.904,1.427,0.815
4096,7.317,5.582,3.097
8192,31.176,23.221,12.451
16384,128.212,94.618,41.993
32768,471.209,285.384,124.677
EOD
panel = csvdir."/04-tiling_panel.csv"
if (readable(panel)) {
    set output out("panel")
    set title "Lesson 04: the panel product C (n x n) = A (n x 32) · B (32 x n); dashed: the lecture's cc 6.1 GPU"
    set ylabel "ms per call (log scale)"
    set logscale y
    plot for [v in "1 2 3 0 12"] rows_of(panel, v) using 3:4 with linespoints lt (v + 1) \
         title sprintf("v%s %s", v, name_of(panel, v)), \
         $hist001 using 1:2 with linespoints dt 2 pt 6 lt 6 title "lecture simple", \
         $hist001 using 1:3 with linespoints dt 2 pt 6 lt 7 title "lecture coalesced", \
         $hist001 using 1:4 with linespoints dt 2 pt 6 lt 8 title "lecture sharedAB"
    unset logscale y
}

# The Russian lecture's G80 figures at 1024²: blocks per SM, GFLOPS of Muld, of Muld unrolled
$hist000 << EOD
1,35,61
2,45,80
EOD
blocks = csvdir."/04-tiling_blocks_per_sm.csv"
if (readable(blocks)) {
    set output out("blocks")
    set title "Lesson 04: Muld 16x16 at 1024², GFLOP/s against resident blocks per SM (log scale)"
    set xlabel "blocks per SM"
    set ylabel "GFLOP/s (log scale)"
    set logscale y
    set xrange [0.8:10]
    plot rows_of(blocks, "4") using 4:7 with linespoints lt 2 title "v4 muld16, this GPU", \
         rows_of(blocks, "5") using 4:7 with linespoints lt 4 title "v5 muld16_unroll, this GPU", \
         $hist000 using 1:2 with linespoints dt 2 pt 6 lt 2 title "Muld, G80", \
         $hist000 using 1:3 with linespoints dt 2 pt 6 lt 4 title "Muld unrolled, G80"
}
