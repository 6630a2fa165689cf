# `cpack` (in the build directory) builds memframe_<version>_<arch>.deb from
# the install rules (cmake/install.cmake), at prefix /usr. Its Depends come
# from dpkg-shlibdeps over every binary it holds (the agent included), so
# they name exactly the libraries the build linked.
set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME memframe)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "per-frame memory profiler for games")
set(CPACK_PACKAGE_DESCRIPTION "memframe is preloaded into an unmodified game, finds its frames by the buffer
swap or present, and tells which call sites allocate every frame, how long the
allocator took in each frame, what a level load left behind and what leaked.
Includes the recorder and reports (memframe), the viewer (memframe-viewer),
the agent library and the optional annotation header.")
set(CPACK_PACKAGE_CONTACT "memframe maintainers <memframe@localhost>")
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_STRIP_FILES ON)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION devel)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
# The viewer reads its UI font from fonts-dejavu-core when it is there.
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "fonts-dejavu-core")
set(CPACK_DEBIAN_COMPRESSION_TYPE gzip)
include(CPack)
