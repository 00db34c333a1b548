# lib_hls.sh - helpers the accelerator tests share (sourced, not a test):
# a C simulation of OUT/hls, and the check that every layer's counted
# cycles (cycles.json) are within 10% of the plan's.
# The caller sets: work (a scratch folder), ok and bad (report functions).

# cycles.json: every layer and the period within 10% of the plan
cycles_agree() { # cycles_agree FILE
    awk -F'[:,}]' '
        /"plan_cycles"/ { for (i = 1; i <= NF; i++) { if ($i ~ /plan_cycles/) p = $(i + 1); if ($i ~ /csim_cycles/) c = $(i + 1) }
                          n++; if (p + 0 > 0 && (c - p > 0.1 * p || p - c > 0.1 * p)) { print "  layer " n ": plan " p ", csim " c; bad++ } }
        END { exit bad > 0 || n == 0 }' "$1"
}

csim() { # csim DIR NAME VARIANT MAKE_ARGS...
    local dir=$1 name=$2 variant=$3
    shift 3
    if make -C "$dir" "$@" > "$work/$name.$variant.log" 2>&1 && grep -q "csim: PASS" "$work/$name.$variant.log"; then
        ok "$name: $variant C simulation bit-exact"
    else
        bad "$name: $variant C simulation"
        tail -5 "$work/$name.$variant.log"
    fi
}
