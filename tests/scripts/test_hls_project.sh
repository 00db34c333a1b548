#!/usr/bin/env bash
# test_hls_project.sh - the Vitis project files of OUT/hls without Vitis:
# run_hls.tcl is executed by tclsh with each Vitis HLS command replaced by a
# recorder that checks its arguments (files exist, options known), and
# hls_config.cfg is read key by key against the unified flow's keys it may
# use. Both must name the same top, part, clock and sources - every file of
# engines/ and top/ once, the testbench as testbench - and agree with the
# plan (options.clock_mhz of plan.json) for two boards. A project that names a
# missing file, a wrong clock or an unknown key fails.
# usage: test_hls_project.sh ONNX2HLS SOURCE_DIR BUILD_DIR
set -u
bin=$(realpath "$1") src=$(realpath "$2") build=$(realpath "$3")
command -v tclsh > /dev/null || { echo "skip: no tclsh (Debian package tcl)"; exit 77; }
work=$build/test_hls_project
rm -rf "$work" && mkdir -p "$work"
fail=0
ok() { echo "ok: $1"; }
bad() { echo "FAIL: $1"; fail=1; }

# the stand-ins: each Vitis command appends one line to $log after checking it
cat > "$work/stubs.tcl" << 'EOF'
set log [open $::env(O2H_LOG) w]
proc note {args} { puts $::log [join $args " "] }
proc open_project {args} { note open_project {*}$args }
proc set_top {name} { note set_top $name }
proc add_files {args} {
    set tb 0; set cflags ""; set files {}
    for {set i 0} {$i < [llength $args]} {incr i} {
        set a [lindex $args $i]
        switch -- $a {
            -tb { set tb 1 }
            -cflags { incr i; set cflags [lindex $args $i] }
            default {
                if {[string index $a 0] eq "-"} { error "add_files: unknown option $a" }
                lappend files $a
            }
        }
    }
    foreach inc [regexp -all -inline -- {-I\S+} $cflags] {
        if {![file isdirectory [string range $inc 2 end]]} { error "add_files: no include folder $inc" }
    }
    foreach f $files {
        if {![file isfile $f]} { error "add_files: no file $f" }
        note add_files [expr {$tb ? "tb" : "src"}] [file tail [file dirname $f]]/[file tail $f]
    }
}
proc open_solution {args} { note open_solution {*}$args }
proc set_part {p} { note set_part $p }
proc create_clock {args} {
    array set o $args
    if {![info exists o(-period)] || ![string is double -strict $o(-period)]} { error "create_clock: no -period" }
    note create_clock $o(-period)
}
proc csim_design {args} {
    set i [lsearch $args -argv]
    if {$i < 0 || ![file isdirectory [lindex $args [expr {$i + 1}]]]} { error "csim_design: -argv is not the folder" }
    note csim_design
}
proc csynth_design {args} { note csynth_design }
proc cosim_design {args} { note cosim_design }
proc export_design {args} { note export_design {*}$args }
rename exit tcl_exit
proc exit {args} { note exit; close $::log }
source [lindex $argv 0]
EOF

# cfg keys the unified flow accepts that the emitter may write (UG1553)
known='^(part|clock|flow_target|syn\.top|syn\.cflags|syn\.file|tb\.file|tb\.cflags|tb\.argv|csim\.O|csim\.argv|cosim\.argv|package\.output\.format|package\.output\.file|syn\.output\.format)$'

check() { # check NAME OUT: the Tcl and cfg of OUT/hls against each other and the plan
    local name=$1 out=$2 hls=$2/hls
    local log=$work/$name.tcl.log
    if ! O2H_LOG=$log O2H_STEPS="csim csynth cosim export" tclsh "$work/stubs.tcl" "$hls/run_hls.tcl" \
        > "$work/$name.tclsh.out" 2>&1; then
        bad "$name: run_hls.tcl under tclsh"; cat "$work/$name.tclsh.out"; return
    fi
    ok "$name: run_hls.tcl runs, every file and include folder it names exists"
    local steps
    steps=$(grep -E '^(csim|csynth|cosim|export)_design' "$log" | cut -d' ' -f1 | tr '\n' ' ')
    [ "$steps" = "csim_design csynth_design cosim_design export_design " ] && ok "$name: steps in order" \
        || bad "$name: steps '$steps'"
    # sources: every engine and the top once, the testbench as -tb
    (cd "$hls" && ls engines/*.c top/*.c) | sort > "$work/$name.want"
    grep '^add_files src ' "$log" | cut -d' ' -f3 | sort > "$work/$name.tcl.src"
    cmp -s "$work/$name.want" "$work/$name.tcl.src" && ok "$name: Tcl adds each source once" \
        || { bad "$name: Tcl sources differ"; diff "$work/$name.want" "$work/$name.tcl.src"; }
    grep -q '^add_files tb tb/o2h_tb.c$' "$log" && ok "$name: Tcl testbench" || bad "$name: Tcl testbench"
    # the cfg: known keys, existing files, the same sources
    local cfg=$hls/hls_config.cfg
    local unknown
    unknown=$(sed -e 's/#.*//' -e '/^\s*$/d' -e '/^\[hls\]$/d' "$cfg" | cut -d= -f1 | grep -Ev "$known")
    [ -z "$unknown" ] && ok "$name: cfg keys known" || bad "$name: cfg keys unknown: $unknown"
    grep '^syn.file=' "$cfg" | cut -d= -f2 | sort > "$work/$name.cfg.src"
    cmp -s "$work/$name.want" "$work/$name.cfg.src" && ok "$name: cfg lists each source once" \
        || { bad "$name: cfg sources differ"; diff "$work/$name.want" "$work/$name.cfg.src"; }
    for f in $(grep -E '^(syn|tb)\.file=' "$cfg" | cut -d= -f2); do
        [ -f "$hls/$f" ] || bad "$name: cfg names a missing $f"
    done
    # one top, part and clock in both, the clock the plan's
    local t_top c_top t_part c_part t_clk c_clk mhz want
    t_top=$(sed -n 's/^set_top //p' "$log") c_top=$(sed -n 's/^syn.top=//p' "$cfg")
    t_part=$(sed -n 's/^set_part //p' "$log") c_part=$(sed -n 's/^part=//p' "$cfg")
    t_clk=$(sed -n 's/^create_clock //p' "$log") c_clk=$(sed -n 's/^clock=\(.*\)ns$/\1/p' "$cfg")
    mhz=$(grep -o '"options": *{[^}]*' "$out/plan.json" | grep -o '"clock_mhz": *[0-9.]*' | grep -o '[0-9.]*$')
    want=$(awk -v f="$mhz" 'BEGIN { printf "%.3f", 1000 / f }')
    [ "$t_top" = o2h_top ] && [ "$c_top" = o2h_top ] && ok "$name: top o2h_top" || bad "$name: top '$t_top' '$c_top'"
    local defs=0
    for f in $(grep '^syn.file=' "$cfg" | cut -d= -f2); do
        grep -Eq "^void $c_top\(" "$hls/$f" && defs=$((defs + 1))
    done
    [ "$defs" = 1 ] && ok "$name: syn.top is defined in one syn.file" || bad "$name: syn.top defined in $defs syn.file(s)"
    [ -n "$t_part" ] && [ "$t_part" = "$c_part" ] && [ "$t_part" = "$3" ] && ok "$name: part $t_part" \
        || bad "$name: part '$t_part' '$c_part', want $3"
    [ "$t_clk" = "$want" ] && [ "$c_clk" = "$want" ] && ok "$name: clock ${want} ns = ${mhz} MHz" \
        || bad "$name: clock '$t_clk' '$c_clk', want $want (plan $mhz MHz)"
}

s=mobilenet_tiny
for board in "zcu102 167 xczu9eg-ffvb1156-2-e" "u250 300 xcu250-figd2104-2L-e"; do
    set -- $board
    out=$work/$s.$1
    if "$bin" compile "$src/samples/$s.onnx" -o "$out" --precision int8 --calib "$src/samples/$s.in.f32" \
        --target "$1" --clock "$2" --quiet > "$work/$s.$1.log" 2>&1; then
        check "$s.$1" "$out" "$3"
    else
        bad "$s.$1: compile"; cat "$work/$s.$1.log"
    fi
done

# the checks can fail: a missing engine, a foreign key, a wrong clock
out=$work/$s.zcu102
rm "$out/hls/engines/$(ls "$out/hls/engines" | grep '\.c$' | head -1)"
O2H_LOG=$work/neg.log tclsh "$work/stubs.tcl" "$out/hls/run_hls.tcl" > /dev/null 2>&1 \
    && bad "a missing engine went unnoticed" || ok "a missing engine fails the Tcl run"
echo "syn.bogus=1" >> "$out/hls/hls_config.cfg"
sed -e 's/#.*//' -e '/^\s*$/d' -e '/^\[hls\]$/d' "$out/hls/hls_config.cfg" | cut -d= -f1 | grep -Eqv "$known" \
    && ok "an unknown cfg key is found" || bad "an unknown cfg key went unnoticed"
exit $fail
