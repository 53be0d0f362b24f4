# SPROF_VERSION_TEXT: what every tool's --version says, the project version
# and the git revision it was configured from ("0.1.0 (git 8f24c23)"), or the
# version alone outside a git checkout of this project (a release tarball).
# A new commit or checkout re-configures, so the revision is never stale.
set(SPROF_VERSION_TEXT ${PROJECT_VERSION})
find_package(Git QUIET)
if(GIT_FOUND)
  execute_process(COMMAND ${GIT_EXECUTABLE} rev-parse --show-toplevel WORKING_DIRECTORY ${CMAKE_SOURCE_DIR}
                  OUTPUT_VARIABLE git_top OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET RESULT_VARIABLE git_rc)
  if(git_rc EQUAL 0 AND git_top STREQUAL CMAKE_SOURCE_DIR)  # not a checkout of some project around it
    execute_process(COMMAND ${GIT_EXECUTABLE} describe --always --tags WORKING_DIRECTORY ${CMAKE_SOURCE_DIR}
                    OUTPUT_VARIABLE git_rev OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
    set(SPROF_VERSION_TEXT "${PROJECT_VERSION} (git ${git_rev})")
    execute_process(COMMAND ${GIT_EXECUTABLE} rev-parse --path-format=absolute --git-path logs/HEAD
                    WORKING_DIRECTORY ${CMAKE_SOURCE_DIR} OUTPUT_VARIABLE head_log OUTPUT_STRIP_TRAILING_WHITESPACE
                    ERROR_QUIET)
    if(EXISTS "${head_log}")  # appended to by every commit and checkout
      set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS "${head_log}")
    endif()
  endif()
endif()
