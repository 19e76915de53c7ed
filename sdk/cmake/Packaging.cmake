# Installs the CMake package that lets a plugin author or a host application build against an
# installed scfw:
#
#   find_package(scfw REQUIRED)
#   scfw_add_plugin(my_outer my_outer.cpp)                     # a plugin
#   target_link_libraries(my_app PRIVATE scfw::core)           # a host (scfw/host.hpp)
#
# Installed layout: <prefix>/lib/cmake/scfw/{scfwConfig,scfwConfigVersion,scfwTargets,
# scfwPluginHelpers}.cmake beside lib/libscfw_sdk.so, lib/libscfw_core.so, include/scfw/ and
# lib/scfw/plugins/. Included once, at the end of the top-level CMakeLists.txt, after every
# exported target exists.
include(CMakePackageConfigHelpers)

set(SCFW_INSTALL_CMAKEDIR ${CMAKE_INSTALL_LIBDIR}/cmake/scfw)
# Relative to the prefix, so that an installed tree can be moved.
set(SCFW_INSTALL_PLUGINDIR ${CMAKE_INSTALL_LIBDIR}/scfw/plugins)

install(EXPORT scfwTargets
  NAMESPACE scfw::
  FILE scfwTargets.cmake
  DESTINATION ${SCFW_INSTALL_CMAKEDIR})

configure_package_config_file(
  ${PROJECT_SOURCE_DIR}/sdk/cmake/scfwConfig.cmake.in
  ${PROJECT_BINARY_DIR}/cmake/scfwConfig.cmake
  INSTALL_DESTINATION ${SCFW_INSTALL_CMAKEDIR}
  PATH_VARS SCFW_INSTALL_PLUGINDIR CMAKE_INSTALL_INCLUDEDIR)

# 0.x: a minor release may change the plugin ABI (see kAbiVersion), so only the same minor
# version is compatible.
write_basic_package_version_file(
  ${PROJECT_BINARY_DIR}/cmake/scfwConfigVersion.cmake
  VERSION ${PROJECT_VERSION}
  COMPATIBILITY SameMinorVersion)

install(FILES
  ${PROJECT_BINARY_DIR}/cmake/scfwConfig.cmake
  ${PROJECT_BINARY_DIR}/cmake/scfwConfigVersion.cmake
  ${PROJECT_SOURCE_DIR}/sdk/cmake/scfwPluginHelpers.cmake
  DESTINATION ${SCFW_INSTALL_CMAKEDIR})
