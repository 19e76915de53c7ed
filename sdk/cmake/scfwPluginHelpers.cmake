# scfw_add_plugin(<name> <source>... [LIBRARIES <lib>...])
#
# Builds one scfw plugin: a shared library loaded at run time (a CMake MODULE), named
# libscfw_<name>.so, linked against the SDK, with SCFW_PLUGIN_VERSION defined as the project's
# version. Inside the scfw tree it lands in <build>/lib/scfw/plugins and installs to
# <prefix>/lib/scfw/plugins; in a plugin author's own project it lands in ${SCFW_PLUGIN_OUTPUT_DIRECTORY} (default: the current binary folder), the
# folder to pass to `scfw run --plugin-path` or to put on SCFW_PLUGIN_PATH.
function(scfw_add_plugin name)
  cmake_parse_arguments(ARG "" "" "LIBRARIES" ${ARGN})
  if(NOT ARG_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "scfw_add_plugin(${name}): no source files")
  endif()
  set(target scfw_plugin_${name})
  add_library(${target} MODULE ${ARG_UNPARSED_ARGUMENTS})
  target_link_libraries(${target} PRIVATE scfw::sdk ${ARG_LIBRARIES})
  # SCFW_PLUGIN_VERSION: the VERSION of the project() the plugin is built in (scfw's own for the
  # plugins of the scfw tree), for the registration line:
  #   SCFW_PLUGIN("name", SCFW_PLUGIN_VERSION, register_components)
  if(PROJECT_VERSION)
    target_compile_definitions(${target} PRIVATE SCFW_PLUGIN_VERSION="${PROJECT_VERSION}")
  else()
    target_compile_definitions(${target} PRIVATE SCFW_PLUGIN_VERSION="0.0.0")
  endif()
  set_target_properties(${target} PROPERTIES
    OUTPUT_NAME scfw_${name}
    CXX_VISIBILITY_PRESET hidden
    VISIBILITY_INLINES_HIDDEN ON)
  if(TARGET scfw_sdk AND NOT SCFW_PLUGIN_OUTPUT_DIRECTORY)
    # In the scfw tree: the shared layout, with an rpath that finds libscfw_sdk two levels up.
    set_target_properties(${target} PROPERTIES
      LIBRARY_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/lib/scfw/plugins
      BUILD_RPATH "$ORIGIN/../.."
      INSTALL_RPATH "$ORIGIN/../..")
    install(TARGETS ${target} LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}/scfw/plugins)
    if(TARGET scfw_runtime)
      add_dependencies(scfw_runtime ${target})  # `cmake --build build --target scfw_runtime`
    endif()
  elseif(SCFW_PLUGIN_OUTPUT_DIRECTORY)
    set_target_properties(${target} PROPERTIES LIBRARY_OUTPUT_DIRECTORY ${SCFW_PLUGIN_OUTPUT_DIRECTORY})
  endif()
endfunction()
