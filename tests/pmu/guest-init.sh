#!/bin/busybox sh
# The emulated-PMU guest's /init (scripts/pmu-test): runs the collectors on
# tests/pmu/known_loops with hardware events and prints one line
# "PMU PASS|FAIL name: detail" per check made here; the profiles and the
# program's own counts go back to the host, which checks the numbers, as a
# base64 tar between PMU-FILES and PMU-FILES-END. The kernel command line sets
# PMU_CHECKS: the groups of checks this boot runs.
/bin/busybox --install -s /bin
export PATH=/bin:/sprof/bin
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
dmesg -n 1
echo PMU-BEGIN
pass() { echo "PMU PASS $1: $2"; }
fail() { echo "PMU FAIL $1: $2"; }
# Seconds since boot after each group: where the guest's time goes.
mark() { echo "PMU-TIME $1 $(cut -d' ' -f1 /proc/uptime)"; }
has() { case " $PMU_CHECKS " in *" $1 "*) return 0 ;; esac; return 1; }
loops=/sprof/tests/known_loops
# 100 M instructions in each function: a tick (1 ms, 0.5 M instructions at
# shift 1) misattributed at each end of a function is 0.6 % of it at most.
sizes="25000000 12500000"
hardware=cycles,instructions,r08,r11,armv8_pmuv3/inst_retired/,armv8_pmuv3/cpu_cycles/

# The collectors run as an ordinary user (uid 1000) at perf_event_paranoid 2,
# as most users do: every event then counts user space only, as the
# program's own instruction counts do.
echo 2 > /proc/sys/kernel/perf_event_paranoid
mkdir -p /out && chown 1000:1000 /out && cd /out
user() { /sprof/tests/ktest_as 1000 1000 "$@"; }
# collect NAME TOOL OPTIONS... -- ARGS...: TOOL profiles known_loops ARGS into
# NAME.sprof, the program's own counts go to NAME.truth.
collect() {
  local name=$1 tool=$2
  shift 2
  local options=""
  while [ "$1" != -- ]; do options="$options $1"; shift; done
  shift
  if user $tool $options -s 1ms -o /out/$name.sprof $loops "$@" > /out/$name.truth 2> /out/$name.err; then
    pass ${name}_collected "$(wc -c < /out/$name.sprof) bytes"
  else
    fail ${name}_collected "exit $?: $(head -n3 /out/$name.err | tr '\n' ' ')"
  fi
}

counters=$(dmesg | sed -n 's/.*hw perfevents: enabled with \([^ ]*\) PMU driver, \([0-9]*\) counters.*/\1 \2/p')
mark boot
if [ -n "$counters" ]; then pass pmu_driver "$counters counters"; else fail pmu_driver "no hw perfevents line in dmesg"; fi

# (a) cycles and instructions per function, both collectors, perf backend.
if has counts; then
  for tool in sprof_lib sprof_pt; do
    collect $tool.counts $tool --backend perf -e cycles,instructions,task-clock -- loops $sizes
  done
fi
mark counts

# (b) six hardware events, generic, raw and the PMU's sysfs names, on 2 slots
# of the PMU's counters: sprof rotates them.
if has rotation; then
  for tool in sprof_lib sprof_pt; do
    collect $tool.rotation $tool --backend perf -e $hardware --slots 2 -- loops $sizes
  done
fi
mark rotation

# (c) the PMU's events listed; an event it lacks refused in one line.
if has list; then
  user sprof_lib --list-events > /out/list 2>&1
  missing=""
  for e in cycles instructions armv8_pmuv3/inst_retired/ armv8_pmuv3/cpu_cycles/; do
    grep -qx "$e" /out/list || missing="$missing $e"
  done
  if [ -z "$missing" ]; then pass list_events "$(wc -l < /out/list) events, the PMU's among them"
  else fail list_events "missing:$missing"; fi
  for e in L1-dcache-load-misses branch-misses; do
    user sprof_lib -e $e -o /out/none.sprof $loops loops 1 1 > /out/refused 2>&1
    rc=$?
    lines=$(wc -l < /out/refused)
    if [ $rc -ne 0 ] && [ $rc -lt 128 ] && [ "$lines" -eq 1 ] && grep -q "cannot count '$e'" /out/refused; then
      pass "refused_$e" "exit $rc: $(cat /out/refused)"
    else
      fail "refused_$e" "exit $rc, $lines lines: $(head -n3 /out/refused | tr '\n' ' ')"
    fi
  done
  # 8 hardware events live at once on the 7 counters through perf (as many
  # slots as events): one group cannot hold them; refused in one line that
  # says so and names the way out, before the program starts.
  user sprof_lib --backend perf -e $hardware,stalled-cycles-frontend,stalled-cycles-backend \
    -o /out/none.sprof $loops loops 1 1 > /out/refused 2>&1
  rc=$?
  lines=$(wc -l < /out/refused)
  if [ $rc -eq 2 ] && [ "$lines" -eq 1 ] && grep -q "at once with the 7 hardware events before it" /out/refused &&
     grep -q -- "--slots 7 or fewer" /out/refused && [ ! -e /out/none.sprof ]; then
    pass refused_group "exit $rc: $(cat /out/refused)"
  else
    fail refused_group "exit $rc, $lines lines: $(head -n3 /out/refused | tr '\n' ' ')"
  fi
fi
mark list

# (d) cmdev.ko: its own tests as root, then 8 hardware events all live on
# the PMU's 7 counters, as a member of the group it lets in: the kernel
# multiplexes them, and the counts are scaled by the share each counted.
if has cmdev; then
  if insmod /cmdev.ko; then
    pass cmdev_insmod "/dev/cmdev $(ls -l /dev/cmdev | cut -c1-10)"
    echo 3 > /proc/sys/kernel/perf_event_paranoid    # the kernel's default, which the tests expect
    for t in "/cmdev_tests /cmdev.ko" "/cmdev_fuzz 10000"; do
      timeout 300 $t > /out/kt.log 2>&1
      rc=$?
      sed -n 's/^.*KTEST \(PASS\|FAIL\) /PMU \1 cmdev_/p' /out/kt.log
      [ $rc -eq 0 ] || fail "cmdev_${t%% *}" "exit status $rc (143: killed after 300 s)"
    done
    echo 2 > /proc/sys/kernel/perf_event_paranoid
    rmmod cmdev && insmod /cmdev.ko gid=3000 && chgrp 3000 /dev/cmdev
    if /sprof/tests/ktest_as 1000 1000,3000 sprof_lib --backend cmdev \
         -e $hardware,stalled-cycles-frontend,stalled-cycles-backend -s 1ms -o /out/cmdev.sprof \
         $loops loops $sizes > /out/cmdev.truth 2> /out/cmdev.err; then
      pass cmdev_collected "$(wc -c < /out/cmdev.sprof) bytes"
    else
      fail cmdev_collected "$(head -n3 /out/cmdev.err | tr '\n' ' ')"
    fi
    if dmesg | grep -E 'WARNING:|BUG:|Oops|Call Trace|UBSAN' > /out/bad; then
      fail cmdev_kernel_log "$(head -n3 /out/bad | tr '\n' ' ')"
    else
      pass cmdev_kernel_log "no WARN/BUG/Oops"
    fi
  else
    fail cmdev_insmod "insmod cmdev.ko failed"
  fi
fi
mark cmdev

# (e) phases of different instruction mixes.
if has phases; then
  collect phases sprof_lib --backend perf -e cycles,instructions,task-clock -H 10 -- mix 25000000 3
fi
mark phases

# (f) the cost of a sample: the program's CPU time alone, and under
# sprof_lib on the hardware path and on the software path.
if has overhead; then
  user $loops loops $sizes > /out/bare.truth
  collect overhead_hardware sprof_lib -e cycles,instructions -- loops $sizes
  collect overhead_software sprof_lib -e task-clock,page-faults -- loops $sizes
fi
mark overhead

# The kernel's word on sampling (a throttle, a lowered sample rate), for the log.
echo "PMU-KERNEL perf_event_max_sample_rate $(cat /proc/sys/kernel/perf_event_max_sample_rate)"
dmesg | grep -i 'perf' | sed 's/^/PMU-KERNEL /'
echo PMU-FILES
tar czf - *.sprof *.truth | base64
echo PMU-FILES-END
echo PMU-END
poweroff -f
