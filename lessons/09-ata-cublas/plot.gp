# Figures of lesson 09 from the demo's CSV tables (make bench passes csvdir and outdir; with
# figures=1, as tools/notes/figures.sh runs it, the files are named h200_*.svg for the notes):
#   09-ata-cublas_square.svg   effective TFLOP/s (2·M·N²/time) of every version against N, A N×N
#   09-ata-cublas_wide.svg     the same for the report's wide A (N/2 × N)
#   09-ata-cublas_c2075.svg    time against N on a log scale, today's H200 beside the report's C2075
# Columns of both tables: M, N, v, version, ms, TFLOP/s, of SGEMM, vs DGEMM, vs DSYRK, C2075 ms, check.
if (!exists("csvdir")) csvdir = 'build/bench'
if (!exists("outdir")) outdir = csvdir
out(s) = exists("figures") ? outdir.'/h200_'.s.'.svg' : outdir.'/09-ata-cublas_'.s.'.svg'

set datafile separator ','
set terminal svg size 760,440 dynamic font 'sans,11'
set grid ytics lc rgb '#dddddd'
set key top left
set xlabel 'N (C is N×N)'
names = 'cublasDgemm cublasDsyrk naive report-optimized DMMA-m8n8k4 DMMA-m16n8k16 DMMA-k32 DMMA-k16x6 DMMA-64'
colors = '#7b3294 #1b9e77 #d95f02 #e7298a #66a61e #1f78b4 #e6ab02 #a6761d #e41a1c' # one per version, in every figure
# The rows of one version, through awk: a filter inside `using` would leave gaps that break lines.
rows(file, v) = sprintf("< awk -F, '$3 == %d && $5 != \"-\"' '%s'", v, file)
# The versions a table holds, so that a run of some versions only draws no empty lines.
ids_of(file) = system(sprintf("awk -F, 'NR > 1 && $5 != \"-\" { print $3 }' '%s' | sort -n | uniq | tr '\\n' ' '", file))

do for [shape in 'square wide'] {
    f = csvdir.'/09-ata-cublas_'.shape.'.csv'
    set output out(shape)
    set title sprintf('C = AᵀA in double, A %s: effective rate, 2·M·N² per call', \
                      shape eq 'square' ? 'N×N' : 'N/2 × N')
    set ylabel 'TFLOP/s (2·M·N² / time)'
    set yrange [0:*]
    unset logscale
    plot for [v in ids_of(f)] rows(f, v + 0) using 2:6 with linespoints lw 2 pt 7 ps 0.6 \
        lc rgb word(colors, v + 1) title word(names, v + 1)
}

# Versions 0, 2 and 3 are the report's three implementations: their times against the report's own.
f = csvdir.'/09-ata-cublas_square.csv'
set output out('c2075')
set title "The report's three implementations, A N×N: Tesla C2075 (the report) against this GPU"
set ylabel 'time (ms, log scale)'
set logscale y
set yrange [*:*]
set key top left
plot for [v in '0 2 3'] rows(f, v + 0) using 2:5 with linespoints lw 2 pt 7 ps 0.6 \
         lc rgb word(colors, v + 1) title word(names, v + 1).' (this GPU)', \
     for [v in '0 2 3'] sprintf("< awk -F, '$3 == %d && $10 != \"-\"' '%s'", v + 0, f) using 2:10 \
         with linespoints lw 2 dt 2 pt 6 ps 0.6 lc rgb word(colors, v + 1) title word(names, v + 1).' (C2075)'
