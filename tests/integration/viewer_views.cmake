# memframe-viewer end to end: record the demo game, render every view with
# --screenshot and check what --dump-view-data says against demo_truth.h.
# Included from CMakeLists.txt here; needs the viewer, the CLI and xvfb.
if(MEMFRAME_XVFB_RUN AND TARGET memframe-viewer AND TARGET memframe AND TARGET memframe_demo_game)
  pkg_check_modules(VIEWER_TEST_STB REQUIRED IMPORTED_TARGET stb)  # stb_image reads the PNGs back
  add_executable(viewer_views_test viewer_views_test.cc)
  target_link_libraries(viewer_views_test PRIVATE memframe_e2e_helpers memframe_demo_truth PkgConfig::VIEWER_TEST_STB
                        GTest::gtest_main)
  target_compile_definitions(viewer_views_test PRIVATE
    MEMFRAME_CLI_PATH="$<TARGET_FILE:memframe>"
    MEMFRAME_VIEWER_PATH="$<TARGET_FILE:memframe-viewer>"
    MEMFRAME_DEMO_GAME_PATH="$<TARGET_FILE:memframe_demo_game>")
  add_dependencies(viewer_views_test memframe memframe-viewer memframe_demo_game)
  if(TARGET memframe_agent)
    add_dependencies(viewer_views_test memframe_agent)
  endif()
  # One ctest: the game is recorded once and every case reads that capture.
  add_test(NAME viewer.views_e2e
           COMMAND ${MEMFRAME_XVFB_RUN} ${MEMFRAME_XVFB_ARGS} $<TARGET_FILE:viewer_views_test>)
  set_tests_properties(viewer.views_e2e PROPERTIES ENVIRONMENT "${MEMFRAME_XVFB_ENV}" TIMEOUT 600)
endif()

# Named markers in the viewer against `memframe report diff`, on a synthetic
# capture (test_capture.h): --dump-view-data only, no display needed.
if(TARGET memframe-viewer AND TARGET memframe)
  add_executable(viewer_views_markers_test viewer_views_markers_test.cc)
  target_include_directories(viewer_views_markers_test PRIVATE ${PROJECT_SOURCE_DIR}/tests/unit/analysis)
  target_link_libraries(viewer_views_markers_test PRIVATE memframe_e2e_helpers memframe_analysis memframe_proto
                        GTest::gtest_main)
  target_compile_definitions(viewer_views_markers_test PRIVATE
    MEMFRAME_CLI_PATH="$<TARGET_FILE:memframe>"
    MEMFRAME_VIEWER_PATH="$<TARGET_FILE:memframe-viewer>")
  add_dependencies(viewer_views_markers_test memframe memframe-viewer)
  gtest_discover_tests(viewer_views_markers_test TEST_PREFIX viewer.markers. DISCOVERY_TIMEOUT 30)
endif()

# --dump-view-data only, no display needed, on synthetic captures
# (test_capture.h): a mismatch and a marker on the timeline at their frames
# (marks); the first picture from the summary index equals the whole load's
# (first_picture).
if(TARGET memframe-viewer)
  foreach(name timeline_marks first_picture)
    add_executable(viewer_${name}_test viewer_${name}_test.cc)
    target_include_directories(viewer_${name}_test PRIVATE ${PROJECT_SOURCE_DIR}/tests/unit/analysis)
    target_link_libraries(viewer_${name}_test PRIVATE memframe_e2e_helpers memframe_analysis memframe_proto
                          GTest::gtest_main)
    target_compile_definitions(viewer_${name}_test PRIVATE MEMFRAME_VIEWER_PATH="$<TARGET_FILE:memframe-viewer>")
    add_dependencies(viewer_${name}_test memframe-viewer)
  endforeach()
  gtest_discover_tests(viewer_timeline_marks_test TEST_PREFIX viewer.marks. DISCOVERY_TIMEOUT 30)
  gtest_discover_tests(viewer_first_picture_test TEST_PREFIX viewer.first_picture. DISCOVERY_TIMEOUT 30)
endif()

# The Allocators tab on custom_allocators: its plot drawn (a screenshot) and
# its thread selection against `memframe report allocators --thread`.
if(MEMFRAME_XVFB_RUN AND TARGET memframe-viewer AND TARGET memframe AND TARGET memframe_agent
   AND TARGET target_custom_allocators)
  pkg_check_modules(VIEWER_TEST_STB REQUIRED IMPORTED_TARGET stb)
  add_executable(viewer_allocators_test viewer_allocators_test.cc)
  target_include_directories(viewer_allocators_test PRIVATE ${PROJECT_SOURCE_DIR}/tests/programs/agent_targets)
  target_link_libraries(viewer_allocators_test PRIVATE memframe_e2e_helpers PkgConfig::VIEWER_TEST_STB
                        GTest::gtest_main)
  target_compile_definitions(viewer_allocators_test PRIVATE
    MEMFRAME_CLI_PATH="$<TARGET_FILE:memframe>"
    MEMFRAME_VIEWER_PATH="$<TARGET_FILE:memframe-viewer>"
    MEMFRAME_CUSTOM_ALLOCATORS_PATH="$<TARGET_FILE:target_custom_allocators>")
  add_dependencies(viewer_allocators_test memframe memframe-viewer memframe_agent target_custom_allocators)
  add_test(NAME viewer.allocators
           COMMAND ${MEMFRAME_XVFB_RUN} ${MEMFRAME_XVFB_ARGS} $<TARGET_FILE:viewer_allocators_test>)
  set_tests_properties(viewer.allocators PROPERTIES ENVIRONMENT "${MEMFRAME_XVFB_ENV}" TIMEOUT 300)
endif()

# The viewer on a game in parts (phases_truth.h): Hidden and Lifetimes judge
# one phase at a time, the search finds what a game function led to, the
# timeline names its phase bands.
if(MEMFRAME_XVFB_RUN AND TARGET memframe-viewer AND TARGET memframe AND TARGET memframe_agent
   AND TARGET memframe_phases_game)
  add_executable(viewer_views_phases_test viewer_views_phases_test.cc)
  target_link_libraries(viewer_views_phases_test PRIVATE memframe_e2e_helpers memframe_phases_truth GTest::gtest_main)
  target_compile_definitions(viewer_views_phases_test PRIVATE
    MEMFRAME_CLI_PATH="$<TARGET_FILE:memframe>"
    MEMFRAME_VIEWER_PATH="$<TARGET_FILE:memframe-viewer>"
    MEMFRAME_PHASES_GAME_PATH="$<TARGET_FILE:memframe_phases_game>")
  add_dependencies(viewer_views_phases_test memframe memframe-viewer memframe_agent memframe_phases_game)
  add_test(NAME viewer.views_phases
           COMMAND ${MEMFRAME_XVFB_RUN} ${MEMFRAME_XVFB_ARGS} $<TARGET_FILE:viewer_views_phases_test>)
  set_tests_properties(viewer.views_phases PROPERTIES ENVIRONMENT "${MEMFRAME_XVFB_ENV}" TIMEOUT 600)
endif()

# A screenshot of a damaged capture exits 1, as `memframe report` does.
if(MEMFRAME_XVFB_RUN AND TARGET memframe-viewer)
  add_executable(viewer_damaged_test viewer_damaged_test.cc)
  target_include_directories(viewer_damaged_test PRIVATE ${PROJECT_SOURCE_DIR}/tests/unit/analysis)
  target_link_libraries(viewer_damaged_test PRIVATE memframe_e2e_helpers memframe_analysis memframe_proto
                        GTest::gtest_main)
  target_compile_definitions(viewer_damaged_test PRIVATE MEMFRAME_VIEWER_PATH="$<TARGET_FILE:memframe-viewer>")
  add_dependencies(viewer_damaged_test memframe-viewer)
  add_test(NAME viewer.damaged_capture
           COMMAND ${MEMFRAME_XVFB_RUN} ${MEMFRAME_XVFB_ARGS} $<TARGET_FILE:viewer_damaged_test>)
  set_tests_properties(viewer.damaged_capture PROPERTIES ENVIRONMENT "${MEMFRAME_XVFB_ENV}" TIMEOUT 300)
endif()

# The GPU tab and the live graph's GPU band on the GPU game (gpu_truth.h).
if(MEMFRAME_XVFB_RUN AND TARGET memframe-viewer AND TARGET memframe AND TARGET memframe_agent
   AND TARGET memframe_gpu_game)
  pkg_check_modules(VIEWER_TEST_STB REQUIRED IMPORTED_TARGET stb)
  add_executable(viewer_gpu_test viewer_gpu_test.cc)
  target_link_libraries(viewer_gpu_test PRIVATE memframe_e2e_helpers memframe_gpu_truth PkgConfig::VIEWER_TEST_STB
                        GTest::gtest_main)
  target_compile_definitions(viewer_gpu_test PRIVATE
    MEMFRAME_CLI_PATH="$<TARGET_FILE:memframe>"
    MEMFRAME_VIEWER_PATH="$<TARGET_FILE:memframe-viewer>"
    MEMFRAME_GPU_GAME_PATH="$<TARGET_FILE:memframe_gpu_game>")
  add_dependencies(viewer_gpu_test memframe memframe-viewer memframe_agent memframe_gpu_game)
  add_test(NAME viewer.gpu COMMAND ${MEMFRAME_XVFB_RUN} ${MEMFRAME_XVFB_ARGS} $<TARGET_FILE:viewer_gpu_test>)
  set_tests_properties(viewer.gpu PROPERTIES ENVIRONMENT "${MEMFRAME_XVFB_ENV}" TIMEOUT 300)
endif()
