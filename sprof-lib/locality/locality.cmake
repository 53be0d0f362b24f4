# Locality collection for programs rebuilt with sprof-cc / sprof-c++
# (docs in README.md, "Cache locality", and docs/LOCALITY-COLLECTION.md):
#   libsprof_access.so  the no-op hooks an instrumented program links with,
#                       and its disarmed thread-local HotPath;
#   sprof/sprof_access_plugin.so
#                       the gcc plugin that inlines the hooks' fast path;
#   sprof-cc, sprof-c++ gcc / g++ with a specs file that instruments every
#                       load and store and links libsprof_access.so;
#   the runtime's side  (the same hooks, collecting) goes into libsprof_rt.
set(SPROF_LOCALITY_DIR ${CMAKE_CURRENT_LIST_DIR})

add_library(sprof_access SHARED ${SPROF_LOCALITY_DIR}/access_stubs.cpp)
set_target_properties(sprof_access PROPERTIES CXX_VISIBILITY_PRESET hidden VISIBILITY_INLINES_HIDDEN ON)
target_include_directories(sprof_access PRIVATE ${CMAKE_SOURCE_DIR}/libsprof/collect/include)  # sprof/hot_path.hpp
target_link_libraries(sprof_access PRIVATE atomic)  # the 16-byte atomics
install(TARGETS sprof_access LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})

target_sources(sprof_rt PRIVATE ${SPROF_LOCALITY_DIR}/locality_threads.cpp ${SPROF_LOCALITY_DIR}/locality_records.cpp
                               ${SPROF_LOCALITY_DIR}/data_objects.cpp)
target_link_libraries(sprof_rt PRIVATE atomic)

# The C library's memory functions, which the compiler does not instrument:
# ld --wrap sends the program's calls to the hooks' __wrap_ functions.
# The allocation functions likewise, so a sampled address can be named by
# the call that allocated it.
set(SPROF_WRAPPED_FUNCTIONS memcpy mempcpy memmove memset __memcpy_chk __mempcpy_chk __memmove_chk
    __memset_chk strlen strcpy stpcpy __strcpy_chk __stpcpy_chk strcmp memcmp
    malloc calloc realloc reallocarray free posix_memalign aligned_alloc strdup strndup
    _Znwm _Znam _ZnwmRKSt9nothrow_t _ZnamRKSt9nothrow_t _ZnwmSt11align_val_t _ZnamSt11align_val_t
    _ZdlPv _ZdaPv _ZdlPvm _ZdaPvm _ZdlPvSt11align_val_t _ZdaPvSt11align_val_t
    _ZdlPvmSt11align_val_t _ZdaPvmSt11align_val_t)
list(TRANSFORM SPROF_WRAPPED_FUNCTIONS PREPEND "--wrap=" OUTPUT_VARIABLE wraps)
list(JOIN wraps " " SPROF_WRAP_OPTIONS)

if(NOT CMAKE_C_COMPILER_ID STREQUAL "GNU" OR NOT CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
  message(STATUS "sprof-cc and sprof-c++ need gcc and g++ (the instrumentation is gcc's); not built")
  return()
endif()

# The plugin, built against the headers of the gcc that sprof-cc runs (Debian:
# gcc-12-plugin-dev); gcc refuses a plugin built for another version. Without
# them the wrappers still work, a call per access.
execute_process(COMMAND ${CMAKE_CXX_COMPILER} -print-file-name=plugin OUTPUT_VARIABLE gcc_plugin_dir
                OUTPUT_STRIP_TRAILING_WHITESPACE)
set(SPROF_PLUGIN_NAME sprof_access_plugin.so)
if(EXISTS ${gcc_plugin_dir}/include/gcc-plugin.h)
  add_library(sprof_access_plugin MODULE ${SPROF_LOCALITY_DIR}/access_plugin.cpp)
  target_include_directories(sprof_access_plugin PRIVATE ${CMAKE_SOURCE_DIR}/libsprof/collect/include)
  target_include_directories(sprof_access_plugin SYSTEM PRIVATE ${gcc_plugin_dir}/include)
  target_compile_options(sprof_access_plugin PRIVATE -fno-rtti)  # as gcc itself is built
  set_target_properties(sprof_access_plugin PROPERTIES PREFIX "" OUTPUT_NAME sprof_access_plugin
                        LIBRARY_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/lib/sprof)
  install(TARGETS sprof_access_plugin LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}/sprof)
  set(SPROF_PLUGIN_BUILT ${CMAKE_BINARY_DIR}/lib/sprof/${SPROF_PLUGIN_NAME} CACHE INTERNAL
      "the gcc plugin of the build tree's sprof-cc: objects it compiled depend on it")
else()
  message(WARNING "gcc's plugin headers are not installed (${gcc_plugin_dir}/include; Debian: gcc-12-plugin-dev): "
                  "sprof-cc will call a hook per load and store instead of inlining its fast path")
  set(SPROF_PLUGIN_BUILT "" CACHE INTERNAL "")
endif()

# sprof_configure_specs(OUT ACCESS_DIR PLUGIN_DIR): the specs file at OUT,
# for libsprof_access.so in ACCESS_DIR and the plugin in PLUGIN_DIR.
function(sprof_configure_specs out access_dir plugin_dir)
  set(SPROF_ACCESS_DIR ${access_dir})
  set(SPROF_PLUGIN_OPTION "")
  if(SPROF_PLUGIN_BUILT)
    set(SPROF_PLUGIN_OPTION "-fplugin=${plugin_dir}/${SPROF_PLUGIN_NAME}")
  endif()
  configure_file(${SPROF_LOCALITY_DIR}/sprof.specs.in ${out} @ONLY)
endfunction()

# sprof_configure_wrappers(BIN_OUT BIN_DIR DATA_DIR): the wrappers, written to
# BIN_OUT, for a tree where they are in BIN_DIR and the specs file in
# DATA_DIR/sprof: they find it from their own place, relative to it.
function(sprof_configure_wrappers bin_out bin_dir data_dir)
  file(RELATIVE_PATH SPROF_SPECS_FROM_BIN ${bin_dir} ${data_dir}/sprof/sprof.specs)
  foreach(pair "sprof-cc;cc;${CMAKE_C_COMPILER}" "sprof-c++;c++;${CMAKE_CXX_COMPILER}")
    list(GET pair 0 SPROF_WRAPPER)
    list(GET pair 1 SPROF_LIKE)
    list(GET pair 2 SPROF_COMPILER)
    configure_file(${SPROF_LOCALITY_DIR}/sprof-compiler.in ${bin_out}/${SPROF_WRAPPER} @ONLY
                   FILE_PERMISSIONS OWNER_READ OWNER_WRITE OWNER_EXECUTE GROUP_READ GROUP_EXECUTE
                                    WORLD_READ WORLD_EXECUTE)
  endforeach()
endfunction()

# In the build tree, for the tests.
set(build_specs ${CMAKE_BINARY_DIR}/share/sprof/sprof.specs)
set(SPROF_BUILD_SPECS ${build_specs} CACHE INTERNAL "the specs file of the build tree's sprof-cc, for the test workloads")
sprof_configure_specs(${build_specs} ${CMAKE_BINARY_DIR}/lib ${CMAKE_BINARY_DIR}/lib/sprof)
sprof_configure_wrappers(${CMAKE_BINARY_DIR}/bin ${CMAKE_BINARY_DIR}/bin ${CMAKE_BINARY_DIR}/share)

# Installed: the wrappers are the same wherever the installation goes; the
# specs file names the libraries by absolute path (gcc reads no other), so it
# is written when installing, for the prefix installed to (cmake --install
# --prefix, make install PREFIX=; under DESTDIR, for the prefix it will have).
set(staged ${CMAKE_CURRENT_BINARY_DIR}/install-locality)
sprof_configure_wrappers(${staged} ${CMAKE_INSTALL_FULL_BINDIR} ${CMAKE_INSTALL_FULL_DATADIR})
install(PROGRAMS ${staged}/sprof-cc ${staged}/sprof-c++ DESTINATION ${CMAKE_INSTALL_BINDIR})
# Its template with everything but the prefix filled in now.
sprof_configure_specs(${staged}/sprof.specs.in "@SPROF_PREFIX@/${CMAKE_INSTALL_LIBDIR}"
                      "@SPROF_PREFIX@/${CMAKE_INSTALL_LIBDIR}/sprof")
install(CODE "
  set(SPROF_PREFIX \"\${CMAKE_INSTALL_PREFIX}\")
  configure_file(${staged}/sprof.specs.in ${staged}/sprof.specs @ONLY)
  file(INSTALL DESTINATION \"\${CMAKE_INSTALL_PREFIX}/${CMAKE_INSTALL_DATADIR}/sprof\" TYPE FILE
       FILES ${staged}/sprof.specs)
")
