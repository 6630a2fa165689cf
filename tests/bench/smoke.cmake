# bench.smoke: runs the workload (each shape) and the microbenchmarks on a tiny load and
# checks only that they finish cleanly and print what compare.py parses.
# Usage: cmake -DWORKLOAD=path [-DMICROBENCH=path] -P smoke.cmake

execute_process(COMMAND ${WORKLOAD} --frames 20 --threads 2 --level-every 10 --level-mb 2
                OUTPUT_VARIABLE out RESULT_VARIABLE rc)
message("${out}")
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "game_loop_workload failed: ${rc}")
endif()
foreach(line "allocations=" "frame_time_us p50=")
  string(FIND "${out}" "${line}" at)
  if(at EQUAL -1)
    message(FATAL_ERROR "game_loop_workload did not print '${line}'")
  endif()
endforeach()

# Every shape, briefly: each must end with as many frees as allocations.
foreach(shape lifo shuffled jobs realloc)
  execute_process(COMMAND ${WORKLOAD} --shape ${shape} --frames 8 --threads 3 --allocs 500 --level-mb 1
                  OUTPUT_VARIABLE out RESULT_VARIABLE rc)
  message("${out}")
  if(NOT rc EQUAL 0 OR NOT out MATCHES "shape=${shape} .*game_thread_minflt=")
    message(FATAL_ERROR "game_loop_workload --shape ${shape} failed: ${rc}")
  endif()
endforeach()

if(MICROBENCH)
  execute_process(COMMAND ${MICROBENCH} --benchmark_min_time=0.01
                  OUTPUT_VARIABLE out ERROR_VARIABLE err RESULT_VARIABLE rc)
  message("${out}${err}")
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "hook_microbench failed: ${rc}")
  endif()
  string(FIND "${out}" "ERROR OCCURRED" at)
  if(NOT at EQUAL -1)
    message(FATAL_ERROR "a microbenchmark reported an error")
  endif()
endif()
