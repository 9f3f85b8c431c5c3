# Figures of lesson 03 from the demo's CSV tables (make bench passes csvdir and outdir; with
# figures=1, as tools/notes/figures.sh runs it, the files are named h200_*.svg for the notes):
#   03-naive-matmul_versions.svg  GFLOP/s of cuBLAS and the two naive kernels against n
#   03-naive-matmul_lecture.svg   simpleMultiply, C(n×n) = A(n×32)·B(32×n): the Spanish
#                                 lecture's times (cc 6.1, in the CSV's second column) and today's
# Columns: versions: n, version, name, time, GFLOP/s, % of cuBLAS, max rel err
#          lecture: n, lecture ms (cc 6.1), naive-cols ms, cuBLAS ms, speed-up, naive GFLOP/s
if (!exists("csvdir")) csvdir = 'build/bench'
if (!exists("outdir")) outdir = csvdir
out(s) = exists("figures") ? outdir.'/h200_'.s.'.svg' : outdir.'/03-naive-matmul_'.s.'.svg'

set datafile separator ','
set terminal svg size 720,420 dynamic noenhanced font 'sans,11' background rgb 'white'
set grid ytics lc rgb '#dddddd'
set logscale x 2
set key top left
rows(file, v) = sprintf("< awk -F, 'NR > 1 && $2 == %d' '%s'", v, file)
names = 'cuBLAS naive-rows naive-cols'
colors = '#000000 #d95f02 #1f77b4'

f = csvdir.'/03-naive-matmul_versions.csv'
set output out('versions')
set title 'C = A·B, n×n×n, FP32: cuBLAS against the two naive kernels'
set xlabel 'n'
set ylabel 'GFLOP/s (log scale)'
set logscale y
plot for [v=0:2] rows(f, v) using 1:5 with linespoints lw 2 pt 7 ps 0.6 \
     lc rgb word(colors, v + 1) title sprintf('v%d %s', v, word(names, v + 1))

f = csvdir.'/03-naive-matmul_lecture.csv'
set output out('lecture')
set title 'simpleMultiply, C(n×n) = A(n×32)·B(32×n): a cc 6.1 GPU (Spanish lecture) and this GPU'
set ylabel 'ms, one call (log scale)'
plot f skip 1 using 1:2 with linespoints lw 2 dt 2 pt 6 lc rgb '#7f7f7f' title 'lecture, cc 6.1', \
     f skip 1 using 1:3 with linespoints lw 2 pt 7 ps 0.6 lc rgb '#1f77b4' title 'naive-cols, this GPU', \
     f skip 1 using 1:4 with linespoints lw 2 pt 7 ps 0.6 lc rgb '#000000' title 'cuBLAS, this GPU'
