#!/bin/sh
# Runs each fuzz target for SECONDS (default 60), one per core at a time, from the seeds and the
# corpus earlier runs grew; prints each one's executions, coverage and findings. Exits 1 if
# any target found an input that crashes, leaks past the memory limit or times out: those
# inputs are in .build/fuzz/findings/TARGET/; add each to Tests/Fuzz/Regressions/TARGET/.
# usage: Tests/Fuzz/fuzz.sh [SECONDS] [TARGET...]     (from the repository; `make fuzz`)
set -eu
seconds=${1:-60}
[ $# -gt 0 ] && shift
targets=${*:-manifest ply pcd image tum waymap}
work=.build/fuzz
for target in $targets; do
    mkdir -p "$work/corpus/$target" "$work/findings/$target" "Tests/Fuzz/Regressions/$target"
done
echo "fuzzing $targets for $seconds s each, $(nproc) at a time"
# -rss_limit_mb: the targets' input limits keep a legitimate execution far below it.
printf '%s\n' $targets | xargs -P "$(nproc)" -I{} sh -c "
    /usr/bin/time -q -f '%U %S' -o $work/{}.cpu $work/release/fuzz-{} -max_total_time=$seconds -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
        -artifact_prefix=$work/findings/{}/ $work/corpus/{} $work/seeds/{} Tests/Fuzz/Regressions/{} \
        > $work/{}.log 2>&1 || true"
status=0
for target in $targets; do
    log=$work/$target.log
    runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
    coverage=$(grep -E '^#[0-9]+' "$log" | tail -1 | sed -n 's/.*cov: \([0-9]*\) ft: \([0-9]*\) corp: \([^ ]*\).*/\1 edges, \2 features, corpus \3/p')
    findings=$(ls "$work/findings/$target" | wc -l)
    cpu=$(awk '{ printf "%.0f", $1 + $2 }' "$work/$target.cpu" 2>/dev/null)
    echo "$target: ${runs:-?} executions in ${cpu:-?} CPU s, $coverage, $findings findings (log: $log)"
    [ "$findings" -eq 0 ] || status=1
done
exit $status
