#!/bin/sh
# Task 2 iteration over groups n and assets A (bench_task2, the composer's GLMO choice, Variant II,
# the first 100 iterations, T = max(2000, 2 n) days; 150 s per configuration at most):
#   bench/task2_scaling.sh > docs/perf/task2_scaling.dat
cd "$(dirname "$0")/../build"
export SCFW_PLUGIN_PATH=$PWD/lib/scfw/plugins
echo "# n A K glmo oracle_us tracker_us glmo_us total_us pivots load"
for A in 50 200 500; do
  for n in 50 200 1000 5000; do
    T=$(( n * 2 > 2000 ? n * 2 : 2000 ))
    out=$(timeout 150 ./bin/bench_task2 --glmo auto --groups $n --assets $A --days $T --iterations 100 --repeats 1)
    g=$(echo "$out" | awk '/GLMO solver/ {print $3}')
    o=$(echo "$out" | awk '/^  oracle/ {print $2}')
    t=$(echo "$out" | awk '/^  tracker/ {print $2}')
    gl=$(echo "$out" | awk '/^  GLMO  / {print $2}')
    tot=$(echo "$out" | awk '/iteration \(total\)/ {print $3}')
    piv=$(echo "$out" | awk '/simplex iterations/ {print $3}')
    echo "$n $A 100 ${g:-timeout} ${o:--} ${t:--} ${gl:--} ${tot:--} ${piv:--} $(cut -d' ' -f1 /proc/loadavg)"
  done
done
