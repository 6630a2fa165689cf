# bench.capture_scale (CMakeLists.txt): generate, load, check, clean up.
execute_process(COMMAND ${GEN} ${OUT} --events 2000000 --threads 4 RESULT_VARIABLE gen_status)
if(NOT gen_status EQUAL 0)
  message(FATAL_ERROR "memframe_capture_gen failed: ${gen_status}")
endif()
execute_process(COMMAND ${BENCH} ${OUT} --analyze --expect-events 2000000 --max-store-bytes-per-event 16
                RESULT_VARIABLE load_status OUTPUT_VARIABLE load_output)
file(REMOVE ${OUT})
message("${load_output}")
if(NOT load_status EQUAL 0)
  message(FATAL_ERROR "loading the 2 M-event capture failed the check (status ${load_status})")
endif()
