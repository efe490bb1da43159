# Drawn by mqss eval; rerun with: gnuplot plots.gp (in this directory)
set terminal pngcairo size 900,500 noenhanced
set output 'speedup_family.png'
set title 'Policy speedup per family (geomean; log scale, 1x dashed; no bar = n/a)'
set datafile missing '?'
set logscale y 2
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.8 border -1
set boxwidth 0.9
set grid ytics
set key outside right top
set xtics rotate by -35
set ylabel 'speedup (x, log scale)'
plot 'speedup_family.dat' using 2:xtic(1) title 'vs family baseline', '' using 3 title 'vs reference', '' using 4 title 'vs best fixed', 1 with lines lc rgb 'black' dt 2 notitle
reset
set terminal pngcairo size 900,500 noenhanced
set output 'speedup_cdf.png'
set title 'CDF of per-module speedups (log scale, 1x dashed)'
set grid
set key bottom right
set yrange [0:1.05]
set xlabel 'speedup (x, log scale)'
set ylabel 'fraction of modules'
set arrow from 1, graph 0 to 1, graph 1 nohead dt 2
set logscale x 2
plot 'speedup_cdf.dat' index 0 using 1:2 with steps lw 2 title 'vs family baseline', 'speedup_cdf.dat' index 1 using 1:2 with steps lw 2 title 'vs reference'
