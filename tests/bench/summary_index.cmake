# bench.summary_index (CMakeLists.txt): on a synthetic game-shaped capture,
# `memframe report` (summary and phases, text and JSON) prints exactly the
# same from the summary index as from the whole read that wrote it, and the
# index is really what the second read used (summary_index.h).
execute_process(COMMAND ${GEN} ${OUT} --events 300000 --threads 2 --events-per-frame 2500 RESULT_VARIABLE status
                OUTPUT_QUIET)
if(NOT status EQUAL 0)
  message(FATAL_ERROR "memframe_capture_gen failed: ${status}")
endif()
set(failed "")
foreach(report summary phases)
  foreach(json "" "--json")
    file(REMOVE ${OUT}.mfi)
    execute_process(COMMAND ${MEMFRAME} report ${OUT} ${report} ${json} OUTPUT_VARIABLE whole ERROR_VARIABLE whole_err
                    RESULT_VARIABLE whole_status)
    if(NOT EXISTS ${OUT}.mfi)
      list(APPEND failed "${report} ${json}: the whole read wrote no index")
    endif()
    execute_process(COMMAND ${MEMFRAME} report ${OUT} ${report} ${json} OUTPUT_VARIABLE indexed
                    ERROR_VARIABLE indexed_err RESULT_VARIABLE indexed_status)
    if(NOT whole STREQUAL indexed OR NOT whole_err STREQUAL indexed_err OR NOT whole_status EQUAL indexed_status)
      list(APPEND failed "${report} ${json}: the index printed something else")
    endif()
    if(whole STREQUAL "")
      list(APPEND failed "${report} ${json}: printed nothing")
    endif()
  endforeach()
endforeach()
# Stale: the same capture one byte longer is not the capture indexed.
file(APPEND ${OUT} "x")
execute_process(COMMAND ${MEMFRAME} report ${OUT} OUTPUT_QUIET ERROR_VARIABLE stale_err)
if(NOT stale_err MATCHES "mfi not used: it describes another capture")
  list(APPEND failed "a stale index was not refused: ${stale_err}")
endif()
file(REMOVE ${OUT} ${OUT}.mfi)
if(failed)
  message(FATAL_ERROR "${failed}")
endif()
