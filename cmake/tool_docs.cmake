# Every tool's man page (share/man/man1) and bash completion
# (share/bash-completion/completions), made at build time from the tool's
# own --help, which its table of options writes (cmake/tool-docs.sh).
if(CMAKE_CROSSCOMPILING)  # the tools cannot run here to tell their options
  message(STATUS "cross-compiling: no man pages or bash completion are built")
  return()
endif()
find_program(HELP2MAN help2man)
if(NOT HELP2MAN)
  message(WARNING "help2man not found (Debian: help2man): no man pages or bash completion are built")
  return()
endif()

set(SPROF_MAN_DIR ${CMAKE_BINARY_DIR}/share/man/man1)
set(SPROF_COMPLETION_DIR ${CMAKE_BINARY_DIR}/share/bash-completion/completions)
file(MAKE_DIRECTORY ${SPROF_MAN_DIR} ${SPROF_COMPLETION_DIR})

# sprof_tool_docs(NAME PROGRAM DEPENDS SUMMARY)
function(sprof_tool_docs name program depends summary)
  set(man ${SPROF_MAN_DIR}/${name}.1)
  set(completion ${SPROF_COMPLETION_DIR}/${name})
  add_custom_command(OUTPUT ${man} ${completion}
                     COMMAND ${CMAKE_SOURCE_DIR}/cmake/tool-docs.sh ${program} ${name} ${summary} ${man} ${completion}
                     DEPENDS ${depends} ${CMAKE_SOURCE_DIR}/cmake/tool-docs.sh
                     COMMENT "man page and bash completion of ${name}" VERBATIM)
  add_custom_target(${name}_docs ALL DEPENDS ${man} ${completion})
  install(FILES ${man} DESTINATION ${CMAKE_INSTALL_MANDIR}/man1)
  install(FILES ${completion} DESTINATION ${CMAKE_INSTALL_DATADIR}/bash-completion/completions)
endfunction()

sprof_tool_docs(sprof $<TARGET_FILE:sprof_analyze> sprof_analyze "reports on sprof profiles")
sprof_tool_docs(sprof_lib $<TARGET_FILE:sprof_lib> sprof_lib "profile a program with the in-process sampling runtime")
sprof_tool_docs(sprof_pt $<TARGET_FILE:sprof_pt> sprof_pt "profile a program from outside, with ptrace")
sprof_tool_docs(preprof $<TARGET_FILE:preprof> preprof "write the control file of a program for sprof_lib and sprof_pt")
if(EXISTS ${CMAKE_BINARY_DIR}/bin/sprof-cc)
  foreach(wrapper sprof-cc sprof-c++)
    sprof_tool_docs(${wrapper} ${CMAKE_BINARY_DIR}/bin/${wrapper} ${CMAKE_BINARY_DIR}/bin/${wrapper}
                    "compile and link with sprof's load and store instrumentation")
  endforeach()
endif()
