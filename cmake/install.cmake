# `cmake --install`: what a user of memframe gets, laid out as Debian expects
# (prefix /usr in the .deb, cmake/package.cmake):
#
#   bin/memframe, bin/memframe-viewer
#   lib/<multiarch>/memframe/libmemframe_agent.so   private: only memframe preloads it,
#       and finds it relative to its own binary (injector/launch.h AgentCandidates)
#   include/memframe/annotate.h                      the optional annotations, for games,
#   share/pkgconfig/memframe.pc                      with pkg-config
#   share/cmake/memframe/                            and find_package(memframe) -> memframe::annotate
#   share/doc/memframe/                              README and the docs it links, same relative paths
#   share/man/man1/memframe*.1, share/bash-completion/completions/memframe
#       written by the programs from their own option tables into build/share
#       (POST_BUILD: memframe --generate-docs, memframe-viewer --generate-man)
include(CMakePackageConfigHelpers)

foreach(program memframe memframe-viewer)
  if(TARGET ${program})
    install(TARGETS ${program} RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
  endif()
endforeach()
install(TARGETS memframe_agent LIBRARY DESTINATION ${MEMFRAME_AGENT_INSTALL_DIR})

# The annotation header: header-only (it calls dlsym), so its pkg-config file
# and CMake package are architecture independent and relocatable.
install(FILES agent/include/memframe/annotate.h DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/memframe)
install(TARGETS memframe_annotate EXPORT memframeTargets)
set(MEMFRAME_CMAKE_DIR ${CMAKE_INSTALL_DATADIR}/cmake/memframe)
install(EXPORT memframeTargets NAMESPACE memframe:: DESTINATION ${MEMFRAME_CMAKE_DIR})
configure_package_config_file(cmake/memframeConfig.cmake.in ${CMAKE_CURRENT_BINARY_DIR}/memframeConfig.cmake
  INSTALL_DESTINATION ${MEMFRAME_CMAKE_DIR})
write_basic_package_version_file(${CMAKE_CURRENT_BINARY_DIR}/memframeConfigVersion.cmake
  COMPATIBILITY SameMajorVersion ARCH_INDEPENDENT)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/memframeConfig.cmake ${CMAKE_CURRENT_BINARY_DIR}/memframeConfigVersion.cmake
  DESTINATION ${MEMFRAME_CMAKE_DIR})

set(MEMFRAME_PC_DIR ${CMAKE_INSTALL_DATADIR}/pkgconfig)
# ${pcfiledir}-relative, so that the file is right at any prefix (the .deb
# is built with another prefix than the build's).
file(RELATIVE_PATH MEMFRAME_PC_TO_PREFIX ${CMAKE_INSTALL_PREFIX}/${MEMFRAME_PC_DIR} ${CMAKE_INSTALL_PREFIX})
string(REGEX REPLACE "/$" "" MEMFRAME_PC_TO_PREFIX "${MEMFRAME_PC_TO_PREFIX}")
set(MEMFRAME_PC_LIBS "")
foreach(lib ${CMAKE_DL_LIBS})
  string(APPEND MEMFRAME_PC_LIBS " -l${lib}")
endforeach()
configure_file(cmake/memframe.pc.in ${CMAKE_CURRENT_BINARY_DIR}/memframe.pc @ONLY)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/memframe.pc DESTINATION ${MEMFRAME_PC_DIR})

# Man pages and completion, from where the build wrote them.
if(TARGET memframe)
  install(DIRECTORY ${CMAKE_BINARY_DIR}/share/man/man1 DESTINATION ${CMAKE_INSTALL_MANDIR}
          FILES_MATCHING PATTERN "*.1")
  install(FILES ${CMAKE_BINARY_DIR}/share/bash-completion/completions/memframe
          DESTINATION ${CMAKE_INSTALL_DATADIR}/bash-completion/completions)
endif()

# Docs keep the paths README.md links them by.
install(FILES README.md DESTINATION ${CMAKE_INSTALL_DOCDIR})
install(FILES proto/FORMAT.md DESTINATION ${CMAKE_INSTALL_DOCDIR}/proto)
install(FILES viewer/report/REPORTS.md DESTINATION ${CMAKE_INSTALL_DOCDIR}/viewer/report)
install(FILES viewer/app/README.md DESTINATION ${CMAKE_INSTALL_DOCDIR}/viewer/app)
install(DIRECTORY docs DESTINATION ${CMAKE_INSTALL_DOCDIR})   # docs/*.md and their images
# The Perfetto protos compiled into `memframe export` come under their own licence.
install(FILES proto/perfetto/LICENSE DESTINATION ${CMAKE_INSTALL_DOCDIR}/proto/perfetto)
